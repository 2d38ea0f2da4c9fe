import { describe, expect, it } from 'vitest';
import { isSnapshotJob, jobSchema, validateJob } from '../../src/job/index.js';
import { loadJob } from '../../src/job/index.js';

const base = { name: 'v', baseUrl: 'http://127.0.0.1:1/efa', region: { bbox: [9, 48, 9.1, 48.1] }, rateLimit: { requestsPerSecond: 5 } };

const issues = (input: unknown): string[] => {
  const r = jobSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('snapshot job keys', () => {
  it('takes vehicles and parking with their defaults', () => {
    const job = validateJob({ ...base, sweeps: { vehicles: { maxPerRequest: 100, detail: { budget: 10 } }, parking: { realtime: true, maxPerRequest: 100 } } }, 'test');
    expect(job.sweeps.vehicles?.atStation).toBe(true);
    expect(job.sweeps.vehicles?.detail).toEqual({ budget: 10, spec: true, availability: true });
    expect(job.sweeps.parking?.objectTypes).toBe('all');
    expect(isSnapshotJob(job)).toBe(true);
  });

  it('names the field of an unknown key, a wrong kind or a parking snapshot without realtime', () => {
    expect(issues({ ...base, sweeps: { vehicles: { maxPerRequest: 100, colour: 'red' } } }).join('\n')).toMatch(/sweeps\.vehicles.*colour/);
    expect(issues({ ...base, sweeps: { vehicles: { maxPerRequest: 100, kinds: ['BOAT'] } } }).join('\n')).toMatch(/^sweeps\.vehicles\.kinds\.0/m);
    expect(issues({ ...base, sweeps: { vehicles: { maxPerRequest: 100, engines: [] } } }).join('\n')).toMatch(/^sweeps\.vehicles\.engines: /m);
    expect(issues({ ...base, sweeps: { parking: { realtime: false, maxPerRequest: 100 } } }).join('\n')).toMatch(/^sweeps\.parking\.realtime: .*must be true/m);
    expect(issues({ ...base, snapshots: { retentionDays: 0 } }).join('\n')).toMatch(/^snapshots\.retentionDays: /m);
  });

  it('refuses snapshot and nightly sweeps in one job', () => {
    const text = issues({ ...base, sweeps: { vehicles: { maxPerRequest: 100 }, coord: { types: ['STOP'], maxPerRequest: 100 } } }).join('\n');
    expect(text).toMatch(/^sweeps\.vehicles: snapshot sweeps \(vehicles\) .*nightly sweeps \(coord\)/m);
  });

  it('loads the example job jobs/vehicles.json', async () => {
    const loaded = await loadJob('vehicles');
    expect(isSnapshotJob(loaded.job)).toBe(true);
    expect(loaded.job.snapshots?.retentionDays).toBe(30);
  });
});
