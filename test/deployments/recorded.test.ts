/**
 * Issue 55 item 5: the catalogue against the real recorded answers of its deployments. Each answer is
 * read through its format's dialect, which the entry must list (and, where it is the entry's own
 * dialect, that is the dialect that reads it); its stops lie inside the entry's coverage, and `--near`
 * at any of them finds the entry. Every entry's `init --bbox` job passes `plan`.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dialectFor } from '../../src/efa/dialects/index.js';
import { filterDeployments } from '../../src/deployments/filter.js';
import { coverageBBox, coverageContains } from '../../src/deployments/geo.js';
import { initJob } from '../../src/deployments/init-job.js';
import { findDeployment, loadDeployments } from '../../src/deployments/load.js';
import { planSummary } from '../../src/cli/init.js';
import { SAMPLES_DIR } from '../efa/samples.js';
import { COMPACT_RECORDED, RECORDED, recordedBody, recordedBytes } from './recorded-samples.js';

const FORMAT_OF = { xml: 'xml-full', legacy: 'legacy-json', rapidjson: 'rapidjson' } as const;

describe.skipIf(!existsSync(SAMPLES_DIR))('the catalogue against the recorded answers of its deployments', () => {
  for (const answer of RECORDED) {
    it(`${answer.file}: ${answer.entry} reads it, covers its stops, and is found --near them`, () => {
      const entry = findDeployment(answer.entry);
      expect(entry.operations[answer.operation]).toContain(FORMAT_OF[answer.format]);
      const parsed = dialectFor(answer.format).parse[answer.operation](recordedBody(answer), answer.types ? { requestedTypes: [...answer.types] } : {});
      expect(parsed.rejects).toEqual([]);
      expect(parsed.records.length).toBeGreaterThan(0);
      const points = parsed.records.flatMap((r) => ('coord' in r && r.coord ? [[r.coord.lon, r.coord.lat] as const] : []));
      expect(points.length).toBeGreaterThan(0);
      for (const point of points) {
        expect(coverageContains(entry, point), `${point.join(', ')} outside ${entry.id}`).toBe(true);
        expect(filterDeployments(loadDeployments(), { near: point }).map((m) => m.entry.id)).toContain(entry.id);
      }
    });
  }

  it('an entry whose dialect a recorded answer is in reads it through that dialect', () => {
    const own = RECORDED.filter((a) => findDeployment(a.entry).dialect === a.format);
    expect(new Set(own.map((a) => a.entry))).toEqual(new Set(['de-vrr', 'it-sta', 'de-mvv', 'ie-tfi', 'de-bwegt', 'us-il-rta', 'de-vgn', 'au-nsw']));
    for (const answer of own) {
      const dialect = dialectFor(findDeployment(answer.entry).dialect);
      expect(dialect.detect(recordedBody(answer))).toBe(true);
    }
  });

  it(`${COMPACT_RECORDED.file}: the compact answer's stops lie in ${COMPACT_RECORDED.entry}`, () => {
    const text = recordedBytes(COMPACT_RECORDED.file).toString('utf8');
    const points = [...text.matchAll(/<c>(-?[\d.]+),(-?[\d.]+)<\/c>/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
    expect(points.length).toBeGreaterThan(0);
    for (const point of points) expect(coverageContains(findDeployment(COMPACT_RECORDED.entry), point)).toBe(true);
    expect(findDeployment(COMPACT_RECORDED.entry).operations.stopFinder).toEqual(['xml-compact']);
  });
});

describe('every entry\'s init --bbox job passes plan', () => {
  for (const entry of loadDeployments()) {
    it(entry.id, () => {
      const bbox = coverageBBox(entry);
      const { job } = initJob(entry, { bbox }, '/tmp/jobs/x.json');
      expect(job).toMatchObject({ name: entry.id, deployment: entry.id, source: entry.id, baseUrl: entry.baseUrl, dialect: entry.dialect, timeZone: entry.timeZone });
      const plan = planSummary(job, { bbox });
      expect(plan.tiles).toBeGreaterThanOrEqual(1);
      expect(plan.requests).toBeGreaterThanOrEqual(plan.tiles);
      expect(plan.hours).toBeCloseTo(plan.requests / entry.rateLimit.requestsPerSecond / 3600, 6);
    });
  }
});
