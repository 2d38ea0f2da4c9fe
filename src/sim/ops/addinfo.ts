/** AddInfo (XML_ADDINFO_REQUEST): notices, with the date, line, stop, kind and source filters. */
import { BadParameterError } from '../errors.js';
import type { Params } from '../params.js';
import { NOTICE_TYPES, type Line, type Notice } from '../types.js';
import type { World } from '../world.js';

export interface AddInfoResult {
  readonly infos: Notice[];
  /** Global ids of the stops the notices name, by stop id, where the world knows them. */
  readonly stopGlobalIds: ReadonlyMap<string, string>;
}

type Test = (n: Notice) => boolean;

export function runAddInfo(world: World, p: Params): AddInfoResult {
  const today = world.today;
  const tests: Test[] = [];
  const status = p.oneOf('filterPublicationStatus', ['current', 'history'] as const);
  const dates = p.all('filterDateValid').map((v) => p.dmy('filterDateValid', v) ?? '');
  const componentDate = componentMode(p);
  if (componentDate) dates.push(componentDate);
  const start = p.dmy('filterValidIntervalStart');
  const end = p.dmy('filterValidIntervalEnd');
  if (start && end && start > end) throw new BadParameterError('filterValidIntervalEnd', 'is before filterValidIntervalStart');
  const dateFiltered = dates.length > 0 || start !== undefined || end !== undefined;
  // Without any date or status filter the operation returns the current notices.
  const effectiveStatus = status ?? (dateFiltered ? undefined : 'current');
  if (effectiveStatus) tests.push((n) => world.noticeStatus(n, today) === effectiveStatus);
  if (dates.length > 0) tests.push((n) => dates.some((d) => n.validFrom <= d && d <= n.validTo));
  if (start !== undefined || end !== undefined) tests.push((n) => (end === undefined || n.validFrom <= end) && (start === undefined || n.validTo >= start));

  const types = p.allOf('filterInfoType', NOTICE_TYPES);
  if (types.length > 0) tests.push((n) => types.includes(n.type));
  if (p.flag('hideBannerInfo')) tests.push((n) => n.type !== 'bannerInfo');
  const ids = p.all('filterInfoID');
  if (ids.length > 0) tests.push((n) => ids.includes(n.id));
  const providers = p.all('filterProviderCode');
  if (providers.length > 0) tests.push((n) => providers.includes(n.providerCode));
  const systems = p.all('filterSourceSystemName');
  if (systems.length > 0) tests.push((n) => systems.includes(n.sourceSystem));

  let byKey: Map<string, Line[]> | undefined;
  const linesOf = (n: Notice): Line[] => {
    if (!byKey) {
      byKey = new Map();
      for (const l of world.network.lines()) {
        const k = l.id.split(':').slice(0, 4).join(':');
        byKey.set(k, [...(byKey.get(k) ?? []), l]);
      }
    }
    const index = byKey;
    return n.lines.flatMap((key) => index.get(key) ?? []);
  };
  const mots = p.all('filterMOTType').map((v) => intIn('filterMOTType', v, 0, 99));
  if (mots.length > 0) tests.push((n) => linesOf(n).some((l) => mots.includes(l.mot)));
  const lo = p.int('filterLineNumberIntervalStart', 1, 999);
  const hi = p.int('filterLineNumberIntervalEnd', 1, 999);
  if (lo !== undefined || hi !== undefined) {
    tests.push((n) => linesOf(n).some((l) => {
      const num = Number(l.number.replace(/\D+/g, ''));
      return l.number.replace(/\D+/g, '') !== '' && (lo === undefined || num >= lo) && (hi === undefined || num <= hi);
    }));
  }
  lineFilter(p, tests, 'filterPNLineDir', 3, (parts, key) => key[0] === parts[0] && key[1] === parts[1] && key[3] === parts[2]);
  lineFilter(p, tests, 'filterPNLineSub', 3, (parts, key) => key[0] === parts[0] && key[1] === parts[1] && key[2] === parts[2]);
  lineFilter(p, tests, 'line', 5, (parts, key) => parts.slice(0, 4).every((x, i) => x === key[i]));
  const divas = p.all('itdLPxx_selLine');
  if (divas.length > 0) tests.push((n) => n.lines.some((k) => divas.includes(k.split(':')[1] ?? '')));
  const operators = p.all('itdLPxx_selOperator');
  if (operators.length > 0) tests.push((n) => linesOf(n).some((l) => operators.includes(l.operator)));
  const stops = p.all('itdLPxx_selStop').map((s) => world.findStop(s)?.id ?? s);
  if (stops.length > 0) {
    tests.push((n) => n.stops.some((s) => stops.includes(s)) || stops.some((s) => world.linesAtStop(s).some((l) => n.lines.some((k) => l.id.startsWith(`${k}:`)))));
  }
  const omcs = [...(p.get('filterOMC')?.split(':') ?? []), ...p.all('filterOMC_PlaceID').map(omcOfPlace)];
  if (omcs.some((o) => !/^\d+$/.test(o))) throw new BadParameterError('filterOMC', 'expected municipality keys separated by ":"');
  if (omcs.length > 0) {
    tests.push((n) => linesOf(n).some((l) => world.network.stopsOf(l.id).some((s) => omcs.includes(String(world.pin(s)?.attrs.omc ?? '')))));
  }
  p.flag('passedStops');
  const infos = world.notices().filter((n) => tests.every((t) => t(n)));
  const stopGlobalIds = new Map<string, string>();
  for (const id of new Set(infos.flatMap((n) => n.stops))) {
    const globalId = world.stop(id)?.globalId;
    if (globalId !== undefined) stopGlobalIds.set(id, globalId);
  }
  return { infos, stopGlobalIds };
}

function componentMode(p: Params): string | undefined {
  const day = p.get('filterDateValidDay'), month = p.get('filterDateValidMonth'), year = p.get('filterDateValidYear');
  if (day !== undefined && !/^\d{2}$/.test(day)) throw new BadParameterError('filterDateValidDay', `expected DD, got "${day}"`);
  if (month !== undefined && !/^\d{2}$/.test(month)) throw new BadParameterError('filterDateValidMonth', `expected MM, got "${month}"`);
  if (year !== undefined && !/^\d{4}$/.test(year)) throw new BadParameterError('filterDateValidYear', `expected YYYY, got "${year}"`);
  if (!p.flag('filterDateValidComponentsActive')) return undefined;
  if (day === undefined || month === undefined || year === undefined) {
    const name = day === undefined ? 'filterDateValidDay' : month === undefined ? 'filterDateValidMonth' : 'filterDateValidYear';
    throw new BadParameterError(name, 'is required with filterDateValidComponentsActive=1');
  }
  return p.dmy('filterDateValidDay', `${day}-${month}-${year}`);
}

function lineFilter(p: Params, tests: Test[], name: string, parts: number, match: (parts: string[], key: string[]) => boolean): void {
  const values = p.all(name).map((v) => {
    const s = v.split(':');
    if (s.length !== parts) throw new BadParameterError(name, `expected ${parts} colon-separated parts, got "${v}"`);
    return s;
  });
  if (values.length > 0) tests.push((n) => n.lines.some((k) => values.some((v) => match(v, k.split(':')))));
}

function omcOfPlace(v: string): string {
  const m = /^(\d+):(\d+)$/.exec(v);
  if (!m?.[1]) throw new BadParameterError('filterOMC_PlaceID', `expected <OMC>:<PlaceID>, got "${v}"`);
  return m[1];
}

function intIn(name: string, v: string, min: number, max: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new BadParameterError(name, `expected ${min}..${max}, got "${v}"`);
  return Number(v);
}
