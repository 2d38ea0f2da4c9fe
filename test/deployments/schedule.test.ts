/**
 * Issue 55 item 7: `init --country DE` writes one job per German entry and the scheduler files, the
 * jobs of one upstream staggered so they never ask it at once. The CronJobs are read back as
 * Kubernetes objects and checked for the fields a CronJob requires.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { filterDeployments } from '../../src/deployments/filter.js';
import { loadDeployments } from '../../src/deployments/load.js';
import { staggerJobs } from '../../src/deployments/schedule.js';
import { loadJob } from '../../src/job/load.js';
import { cliIn } from './cli-in.js';

const german = filterDeployments(loadDeployments(), { country: 'DE' }).map((m) => m.entry);
const hostOf = (url: string): string => new URL(url).host;

/** [start, end) minutes of a day's slot, both ends taken mod 24 h. */
function overlaps(a: { start: number; length: number }, b: { start: number; length: number }): boolean {
  const day = 1440;
  for (const shift of [-day, 0, day]) if (a.start < b.start + shift + b.length && b.start + shift < a.start + a.length) return true;
  return false;
}

describe('init --country DE: a job per entry and a staggered schedule', () => {
  let dir: string;
  let stdout: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-country-'));
    const r = await cliIn(dir, ['init', '--country', 'DE']);
    expect(r.code, r.stderr).toBe(0);
    stdout = r.stdout;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a job for every German entry, each loading as run reads it', async () => {
    const files = (await readdir(join(dir, 'jobs'))).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(german.map((e) => `${e.id}.json`).sort());
    for (const file of files) {
      const loaded = await loadJob(join(dir, 'jobs', file));
      const entry = german.find((e) => `${e.id}.json` === file)!;
      expect(loaded.job).toMatchObject({ name: entry.id, source: entry.id, baseUrl: entry.baseUrl, dialect: entry.dialect, timeZone: entry.timeZone });
      expect('geojson' in loaded.region).toBe(true);
    }
    expect(stdout).toContain(`${german.length} services and timers`);
  });

  it('the CronJobs parse as Kubernetes objects with what a CronJob requires, one per job, and a ConfigMap with the job files', async () => {
    const docs = parseAllDocuments(await readFile(join(dir, 'jobs', 'schedule', 'cronjobs.yaml'), 'utf8')).map((d) => {
      expect(d.errors).toEqual([]);
      return d.toJS() as Record<string, any>;
    });
    const [configMap, ...cronJobs] = docs;
    expect(configMap).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'efa-sync-jobs' } });
    expect(Object.keys(configMap!['data']).sort()).toEqual(german.map((e) => `${e.id}.json`).sort());
    for (const text of Object.values(configMap!['data'] as Record<string, string>)) expect(JSON.parse(text)).toHaveProperty('deployment');
    expect(cronJobs).toHaveLength(german.length);
    for (const cj of cronJobs) {
      expect(cj['apiVersion']).toBe('batch/v1');
      expect(cj['kind']).toBe('CronJob');
      expect(cj['metadata']['name']).toMatch(/^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/);
      expect(cj['spec']['schedule']).toMatch(/^\d{1,2} \d{1,2} \* \* \*$/);
      expect(cj['spec']['concurrencyPolicy']).toBe('Forbid');
      const pod = cj['spec']['jobTemplate']['spec']['template']['spec'];
      expect(['Never', 'OnFailure']).toContain(pod['restartPolicy']);
      expect(pod['containers']).toHaveLength(1);
      expect(pod['containers'][0]).toMatchObject({ name: 'efa-sync', args: ['run', `/jobs/${cj['metadata']['name'].replace('efa-sync-', '')}.json`, '--log-format', 'json'] });
      expect(typeof pod['containers'][0]['image']).toBe('string');
    }
  });

  it('no two jobs of one upstream overlap in crontab, systemd timers or CronJobs', async () => {
    const cron = (await readFile(join(dir, 'jobs', 'schedule', 'crontab'), 'utf8')).split('\n').filter((l) => /^\d/.test(l));
    expect(cron).toHaveLength(german.length);
    const slots = staggerJobs(german.map((e) => ({ id: e.id, jobFile: `jobs/${e.id}.json`, baseUrl: e.baseUrl, hours: 0 })));
    const byHost = new Map<string, typeof slots>();
    for (const s of slots) byHost.set(s.host, [...(byHost.get(s.host) ?? []), s]);
    // The catalogue has hosts that serve two German entries (efa-bw.de, defas-fgi.de): the test means something.
    expect([...byHost.values()].some((list) => list.length > 1)).toBe(true);
    for (const list of byHost.values()) {
      for (let i = 0; i < list.length; i += 1) {
        for (let j = i + 1; j < list.length; j += 1) {
          expect(overlaps({ start: list[i]!.startMinute, length: list[i]!.slotMinutes }, { start: list[j]!.startMinute, length: list[j]!.slotMinutes })).toBe(false);
        }
      }
    }
    for (const s of slots) {
      const [h, m] = [Math.floor(s.startMinute / 60) % 24, s.startMinute % 60];
      const line = cron.find((l) => l.includes(`jobs/${s.id}.json`))!;
      expect(line.startsWith(`${m} ${h} * * * flock /tmp/efa-sync-${s.host}.lock `)).toBe(true);
      const timer = await readFile(join(dir, 'jobs', 'schedule', 'systemd', `efa-sync-${s.id}.timer`), 'utf8');
      expect(timer).toContain(`OnCalendar=*-*-* ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00 UTC`);
      const service = await readFile(join(dir, 'jobs', 'schedule', 'systemd', `efa-sync-${s.id}.service`), 'utf8');
      expect(service).toMatch(new RegExp(`^ExecStart=/usr/bin/flock /run/efa-sync-${s.host.replaceAll('.', '\\.')}\\.lock .* run jobs/${s.id}\\.json`, 'm'));
      expect(service).toContain('Type=oneshot');
    }
    const nvbw = slots.filter((s) => s.host === 'www.efa-bw.de');
    expect(nvbw.map((s) => s.startMinute)).toEqual([60, 60 + 720]);
  });

  it('refuses to overwrite the schedule without --force', async () => {
    const again = await cliIn(dir, ['init', '--country', 'DE']);
    expect(again.code).toBe(2);
    expect(existsSync(join(dir, 'jobs', 'schedule', 'crontab'))).toBe(true);
  });
});
