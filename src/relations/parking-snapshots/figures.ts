import { instantOf, num, objectAt, text, type Attrs } from '../answer-values.js';
import type { ParkingRow } from './table.js';

/** The parking data set's sources (published schema `parkingDataSet.dataSource`). */
export const PARKING_DATA_SOURCES = ['REALTIME', 'PROFILE', 'UNKNOWN'] as const;
export type ParkingDataSource = (typeof PARKING_DATA_SOURCES)[number];

type Figures = Omit<ParkingRow, 'parkingKey' | 'name' | 'kind' | 'lon' | 'lat' | 'problems'>;

/** A count as sent under one name: its value when it is one, else why not. */
interface Count {
  readonly value: number | null;
  /** Set when a value was sent and is not a count of places: the figure is stored as NULL. */
  readonly problem?: string;
}

const shown = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/**
 * The first of `candidates` the answer sent, as a count of places: a whole number from 0 up. Text
 * such as "12" is a count only where the dialect writes every value as text (legacy EFA JSON); the
 * published rapidJSON schema types these fields as numbers and the json dialect sends JSON numbers,
 * so there text is not read. The first candidate present decides: a bad one is not replaced by the
 * next name, which may come from another source (a forecast for a measurement).
 */
function count(candidates: readonly (readonly [string, unknown])[], textNumbers: boolean): Count & { field?: string } {
  const sent = candidates.find(([, v]) => v !== undefined && v !== null);
  if (sent === undefined) return { value: null };
  const [field, v] = sent;
  const bad = (why: string): Count & { field: string } => ({ value: null, field, problem: `${field} ${shown(v)} ${why}` });
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && textNumbers && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) n = Number(v);
  else if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return bad('is text where this dialect sends a number (the published schema types it as a number): not read');
  else return bad('is not a number of places');
  if (!Number.isFinite(n)) return bad('is not a number of places');
  if (n < 0) return bad('is below 0');
  if (!Number.isInteger(n)) return bad('is not a whole number of places');
  return { value: n, field };
}

/** The sum of `parkingSpaces[].capacity` (rapidJSON), or null when none is sent or one is not a count. */
function spacesCapacity(a: Attrs, textNumbers: boolean): Count {
  const spaces = Array.isArray(a.parkingSpaces) ? (a.parkingSpaces as unknown[]) : [];
  let total = 0;
  let any = false;
  for (const [i, s] of spaces.entries()) {
    const c = count([[`parkingSpaces[${i}].capacity`, typeof s === 'object' && s !== null ? (s as Attrs).capacity : undefined]], textNumbers);
    if (c.problem !== undefined) return { value: null, problem: c.problem };
    if (c.value === null) continue;
    total += c.value;
    any = true;
  }
  return { value: any ? total : null };
}

/**
 * The occupancy figures of a parking object, in every dialect, checked. rapidJSON (published
 * schema): `coordInfoDetails.parkingDataSet` (type PARKING), or the same data set as
 * `parkingRealtimeInfo` or `dataSet` of the location's properties, with `dataSource` saying whether
 * `freePlaces` was measured (REALTIME) or read off a day curve (PROFILE). json and legacy:
 * `realtime: { free, occupied }` or `freeSpaces`, which servers send only with
 * parkObjInfoRealtime=1, so they are REALTIME. Capacity: `capacity`, `totalSpaces`, or the sum of
 * `parkingSpaces[].capacity`. efa.current_parking (sql/011) reads the same fields in the same order.
 *
 * A figure outside [0, capacity] is impossible (free -7, free 10^9 of 10 places, capacity -1), and
 * so are free and occupied adding up to more than the capacity: such a figure is NULL, never a
 * reading, and `problems` says why (the sweep writes each to efa.rejects with the record as sent).
 */
export function checkedParkingFigures(a: Attrs, textNumbers: boolean, timeZone?: string): { figures: Figures; problems: string[] } {
  const details = objectAt(a, 'coordInfoDetails');
  const sets: [string, Attrs][] = [
    ['coordInfoDetails.parkingDataSet', objectAt(details, 'parkingDataSet')],
    ['parkingRealtimeInfo', objectAt(a, 'parkingRealtimeInfo')],
    ['dataSet', objectAt(a, 'dataSet')],
  ];
  const [setName, dataSet] = sets.find(([, d]) => Object.keys(d).length > 0) ?? ['dataSet', {}];
  const realtime = objectAt(a, 'realtime');
  const legacyFree = count([['realtime.free', realtime.free], ['freeSpaces', a.freeSpaces]], textNumbers);
  const setFree = count([[`${setName}.freePlaces`, dataSet.freePlaces]], textNumbers);
  const declared = text(dataSet.dataSource)?.toUpperCase();
  const legacySent = legacyFree.field !== undefined;
  // The json/legacy figure first, as efa.current_parking reads it; then the data set's, with its source.
  const dataSource: ParkingDataSource | null = legacySent
    ? 'REALTIME'
    : setFree.field !== undefined || declared !== undefined ? (PARKING_DATA_SOURCES.find((s) => s === declared) ?? 'UNKNOWN') : null;
  const direct = count([['capacity', a.capacity], ['totalSpaces', a.totalSpaces]], textNumbers);
  const capacity = direct.field !== undefined ? direct : spacesCapacity(a, textNumbers);
  const free = legacySent ? legacyFree : setFree;
  const occupied = count([['realtime.occupied', realtime.occupied], ['occupiedSpaces', a.occupiedSpaces]], textNumbers);
  const problems = [capacity, free, occupied].flatMap((c) => (c.problem === undefined ? [] : [c.problem]));
  let [f, o] = [free.value, occupied.value];
  const cap = capacity.value;
  if (cap !== null && f !== null && f > cap) {
    problems.push(`free places ${f} exceed the capacity ${cap}`);
    f = null;
  }
  if (cap !== null && o !== null && o > cap) {
    problems.push(`occupied places ${o} exceed the capacity ${cap}`);
    o = null;
  }
  if (cap !== null && f !== null && o !== null && f + o > cap) {
    problems.push(`free ${f} and occupied ${o} places add up to more than the capacity ${cap}: neither is read`);
    [f, o] = [null, null];
  }
  return {
    figures: {
      capacity: cap,
      free: f,
      occupied: o,
      dataSource,
      measuredAt: instantOf(dataSet.measuredAt, timeZone),
      occ: num(dataSet.occ),
      occLos: num(dataSet.occLOS),
      occLevel: text(dataSet.occLevel),
      occTrend: num(dataSet.occTrend),
    },
    problems,
  };
}
