import { HISTORY_RELATIONS } from '../history/relations.js';
import { ConfigError } from '../errors.js';
import { snapshotRelations, type SnapshotKind } from '../relations/index.js';

/**
 * What the lake holds: the two time series (one row per object per snapshot) and the superseded
 * versions of every relation that keeps history. Each is partitioned by source and by the UTC day of
 * one timestamp: when a series row was taken, when a version ended (`upper(valid)`: the day the
 * replacing run or the deletion wrote it, so a day's versions all exist once the day is over).
 */
export interface LakeRelation {
  /** The table in schema efa, and the folder under the lake. */
  readonly name: string;
  readonly family: 'series' | 'history';
  /** The SQL expression of the partition time, over the table aliased `t`. */
  readonly timeSql: string;
  /** The order rows are written in: the time first, so row groups carry narrow time statistics. */
  readonly orderSql: string;
  /** For a series: the kind efa.snapshots records its snapshots under (the partitions to look at). */
  readonly snapshotKind?: SnapshotKind;
}

const SERIES: readonly LakeRelation[] = snapshotRelations.map((r) => ({
  name: r.table.name,
  family: 'series' as const,
  timeSql: 't.taken_at',
  orderSql: `t.taken_at, t.${r.key}`,
  snapshotKind: r.kind,
}));

const HISTORY: readonly LakeRelation[] = HISTORY_RELATIONS.map((r) => ({
  name: `${r}_history`,
  family: 'history' as const,
  timeSql: 'upper(t.valid)',
  orderSql: 'upper(t.valid), t.hist_id',
}));

export const LAKE_RELATIONS: readonly LakeRelation[] = [...SERIES, ...HISTORY];

/** `--relations a,b` (names with or without `efa.`), or every relation of the lake. */
export function lakeRelationsOf(list: string | undefined): LakeRelation[] {
  if (list === undefined) return [...LAKE_RELATIONS];
  const names = list.split(',').map((n) => n.trim()).filter((n) => n !== '');
  if (names.length === 0) throw new ConfigError('--relations: empty; give a comma-separated list, or leave it out for every relation', 'relations');
  const out: LakeRelation[] = [];
  for (const name of names) {
    const bare = name.startsWith('efa.') ? name.slice('efa.'.length) : name;
    const found = LAKE_RELATIONS.find((r) => r.name === bare);
    if (!found) throw new ConfigError(`--relations: "${name}" is not in the lake; valid: ${LAKE_RELATIONS.map((r) => r.name).join(', ')}`, 'relations');
    if (!out.includes(found)) out.push(found);
  }
  return out;
}

/** A day as `YYYY-MM-DD` that is a real calendar day (no 2026-02-30), or a ConfigError naming the option. */
export function parseDay(text: string, option: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!d || d.toISOString().slice(0, 10) !== text) throw new ConfigError(`${option}: expected a day as YYYY-MM-DD (UTC), got "${text}"`, option.replace(/^--/, ''));
  return text;
}

/** The UTC day after `day`. */
export function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
