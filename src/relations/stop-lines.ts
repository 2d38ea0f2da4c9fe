import { columnLists, type Entity } from './entity.js';

/**
 * efa.stop_lines: which line serves which stop, from the ServingLines answer for the stop.
 * Key: `stop_id|line_key`. The pair is its whole content (the hash is constant): it is inserted
 * once, marked gone, or revived. Deletion scope: stops whose ServingLines request this run was
 * complete, under the same line filters (efa.gone_stop_lines).
 */
export interface StopLineRow {
  readonly stop_id: string;
  readonly line_key: string;
}

export const pairKey = (r: StopLineRow): string => `${r.stop_id}|${r.line_key}`;

export const stopLines: Entity<StopLineRow> = {
  relation: 'stop_lines',
  table: 'efa.stop_lines',
  key: 'pair_key',
  goneColumn: 'deleted_at',
  keyOf: pairKey,
  hashOf: () => '',
  // A pair refers to its stop and its line; a stop found gone takes its pairs along.
  after: ['pins', 'lines'],
  goneAfter: ['pins'],
  ...columnLists<StopLineRow>(
    [
      { name: 'stop_id', type: 'text', value: (r) => r.stop_id },
      { name: 'line_key', type: 'text', value: (r) => r.line_key },
    ],
    { direct: false },
  ),
  scopeOf: (job) => {
    const cfg = job.sweeps.servingLines;
    return cfg?.forStops ? { lineReqType: [...cfg.lineReqType].sort() } : undefined;
  },
};
