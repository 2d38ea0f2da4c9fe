/**
 * dialect-parse: records per second of the xml path (decode + saxes + the xml CoordInfo reader)
 * beside the legacy JSON path (JSON.parse + the legacy reader) on the same world's CoordInfo answers,
 * rendered by the simulator's renderers in answers of `BENCH_DIALECT_PER_ANSWER` pins (default 1000,
 * the sweeps' maxPerRequest), and one 50 MB XML answer for memory. Alternating rounds, best of
 * `BENCH_DIALECT_ROUNDS` (5). Issue 46's target: xml ≥ legacy in records/s.
 */
import { decodeReply } from '../src/efa/classify.js';
import { legacyDialect } from '../src/efa/dialects/legacy.js';
import { xmlDialect } from '../src/efa/dialects/xml.js';
import type { Dialect } from '../src/efa/dialect.js';
import { generateWorld } from '../src/sim/index.js';
import type { PinOut } from '../src/sim/ops/coord.js';
import { renderers } from '../src/sim/render/index.js';
import { gc, type BenchResult } from './util.js';

const source = { operation: 'coordInfo' as const, path: '/efa/XML_COORD_REQUEST', secrets: [] };

function answers(dialect: 'legacy' | 'xml', outs: readonly PinOut[], perAnswer: number): string[] {
  const render = renderers[dialect];
  const bodies: string[] = [];
  for (let i = 0; i < outs.length; i += perAnswer) {
    const body = render.coord({ pins: outs.slice(i, i + perAnswer) });
    const encoded = render.encode?.(body);
    bodies.push(encoded === undefined ? JSON.stringify(body) : String(encoded.body));
  }
  return bodies;
}

function readAll(dialect: Dialect, bodies: readonly string[]): { records: number; ms: number } {
  const started = performance.now();
  let records = 0;
  for (const text of bodies) {
    const body = decodeReply({ status: 200, headers: {}, body: text, durationMs: 0 }, source);
    records += dialect.parse.coordInfo(body).records.length;
  }
  return { records, ms: performance.now() - started };
}

export async function benchDialectParse(): Promise<BenchResult> {
  const size = Number(process.env['BENCH_DIALECT_PINS'] ?? 200_000);
  const perAnswer = Number(process.env['BENCH_DIALECT_PER_ANSWER'] ?? 1000);
  const rounds = Number(process.env['BENCH_DIALECT_ROUNDS'] ?? 5);
  const world = generateWorld({ seed: 46, size });
  const outs: PinOut[] = [...world.allPins(['STOP', 'POI_POINT'])].map((pin) => ({ pin, ...(pin.type === 'STOP' ? { motTypes: pin.motTypes ?? [1] } : {}), distanceM: 10, extra: { ...pin.attrs } }));
  const bodies = { legacy: answers('legacy', outs, perAnswer), xml: answers('xml', outs, perAnswer) };
  const best = { legacy: Number.POSITIVE_INFINITY, xml: Number.POSITIVE_INFINITY };
  let records = 0;
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 === 0 ? (['legacy', 'xml'] as const) : (['xml', 'legacy'] as const)) {
      gc();
      const run = readAll(name === 'xml' ? xmlDialect : legacyDialect, bodies[name]);
      records = run.records;
      best[name] = Math.min(best[name], run.ms);
    }
  }
  const perSecond = (ms: number): number => Math.round((records / ms) * 1000);
  // One 50 MB answer: the heap it takes to read, beside the text itself.
  const big: PinOut[] = [];
  const one = bodies.xml[0]?.length ?? 1;
  while (big.length * (one / perAnswer) < 50e6) big.push(...outs.slice(0, Math.min(outs.length, 50_000)));
  const bigText = answers('xml', big, big.length)[0] ?? '';
  gc();
  const before = process.memoryUsage().heapUsed;
  const started = performance.now();
  const parsed = xmlDialect.parse.coordInfo(decodeReply({ status: 200, headers: {}, body: bigText, durationMs: 0 }, source));
  const bigMs = performance.now() - started;
  gc();
  const heapMb = (process.memoryUsage().heapUsed - before) / 1e6;
  const lines = [
    { metric: `legacy JSON: ${records} records in ${bodies.legacy.length} answers`, value: `${perSecond(best.legacy)} records/s` },
    { metric: 'xml: the same records', value: `${perSecond(best.xml)} records/s`, baseline: 'legacy JSON', ratio: `${(best.legacy / best.xml).toFixed(2)}x` },
    {
      metric: `xml: one ${(bigText.length / 1e6).toFixed(0)} MB answer, ${parsed.records.length} records`,
      value: `${(bigMs / 1000).toFixed(1)} s; heap +${heapMb.toFixed(0)} MB with its records held`,
    },
  ];
  for (const l of lines) console.log(`${l.metric.padEnd(58)} ${l.value}${l.ratio ? `  (${l.ratio} of ${l.baseline})` : ''}`);
  return { lines, notes: ['ratio: legacy time / xml time (above 1: xml reads more records per second)'] };
}
