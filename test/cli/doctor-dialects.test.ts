import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectChecks } from '../../src/cli/doctor-dialects.js';
import { startSimulator, type SimDialect, type Simulator } from '../../src/sim/index.js';
import { inlineJob } from '../helpers/job.js';

/** Issue 46: doctor asks each operation in xml, rapidjson and JSON, says which answered, and recommends one. */
describe('doctor: which formats a deployment answers', () => {
  const sims = new Map<SimDialect, Simulator>();
  beforeAll(async () => {
    for (const d of ['xml', 'legacy'] as const) sims.set(d, await startSimulator({ port: 0, seed: 5, size: 2000, dialect: d }));
  });
  afterAll(async () => {
    for (const s of sims.values()) await s.stop();
  });

  const job = (sim: Simulator) =>
    inlineJob({
      name: 'doctor-dialects',
      baseUrl: sim.url,
      region: { bbox: sim.world.bbox as [number, number, number, number] },
      rateLimit: { requestsPerSecond: 50, concurrency: 2, retries: 1, timeoutMs: 5000 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 }, addInfo: { publicationStatus: 'current' }, opArea: { mode: 'ALL', geometry: true } },
    });

  for (const d of ['xml', 'legacy'] as const) {
    it(`a deployment that answers ${d} only: every operation lists ${d}, and ${d} is recommended`, async () => {
      const check = await dialectChecks(job(sims.get(d)!), undefined);
      expect(check.status).toBe('ok');
      for (const op of ['coordInfo', 'addInfo', 'opArea']) expect(check.message).toContain(`${op}: ${d}`);
      expect(check.message).toContain(`recommended: "dialect": "${d}"`);
    });
  }
});
