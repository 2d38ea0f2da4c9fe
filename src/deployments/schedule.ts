/**
 * Scheduler files for many catalogue jobs (`efa-sync init --country DE`): one crontab line, one systemd
 * service and timer, one Kubernetes CronJob per job. Jobs of one upstream (the base URL's host: efa-bw.de
 * serves NVBW, bwegt and BVB) share the day: n of them start 24/n hours apart, so the same server is never
 * asked by two of them at once while each night fits its share (a cold plan only knows a lower bound of a
 * night, so the share, not the plan, sets the slot; a plan above its share is reported). crontab and
 * systemd also hold a lock per host (flock), which keeps that true when a night runs longer.
 */

export interface ScheduledJob {
  readonly id: string;
  /** The job file, relative to the directory the scheduler runs efa-sync in. */
  readonly jobFile: string;
  readonly baseUrl: string;
  /** Planned hours of one night at the job's rate (requests / requestsPerSecond). */
  readonly hours: number;
}

export interface Slot extends ScheduledJob {
  readonly host: string;
  /** Minutes after midnight UTC the job starts. */
  readonly startMinute: number;
  /** Minutes it is planned to take at least, rounded up to a quarter hour. */
  readonly plannedMinutes: number;
  /** Minutes until the next job of its host starts (its share of the day). */
  readonly slotMinutes: number;
}

/** Minutes after midnight UTC the first job of every upstream starts. */
export const FIRST_START_MINUTE = 60;

const quarter = (minutes: number): number => Math.max(15, Math.ceil(minutes / 15) * 15);

const DAY_MINUTES = 24 * 60;

/** Start times: per upstream host, its jobs share the day in equal slots (on quarter hours); different hosts start together. */
export function staggerJobs(jobs: readonly ScheduledJob[]): Slot[] {
  const sorted = [...jobs].sort((a, b) => a.id.localeCompare(b.id));
  const hostOf = (job: ScheduledJob): string => new URL(job.baseUrl).host;
  const perHost = new Map<string, number>();
  for (const job of sorted) perHost.set(hostOf(job), (perHost.get(hostOf(job)) ?? 0) + 1);
  const seen = new Map<string, number>();
  return sorted.map((job) => {
    const host = hostOf(job);
    const index = seen.get(host) ?? 0;
    seen.set(host, index + 1);
    const slotMinutes = Math.floor(DAY_MINUTES / (perHost.get(host) ?? 1) / 15) * 15;
    return { ...job, host, startMinute: FIRST_START_MINUTE + index * slotMinutes, plannedMinutes: quarter(job.hours * 60), slotMinutes };
  });
}

/** Jobs planned to take longer than their share of the day: their nights would run into the next job of their host. */
export function overfullSlots(slots: readonly Slot[]): Slot[] {
  return slots.filter((s) => s.plannedMinutes > s.slotMinutes);
}

const hhmm = (minute: number): [number, number] => [Math.floor((minute % 1440) / 60), minute % 60];
const lockOf = (host: string): string => `efa-sync-${host.replace(/[^A-Za-z0-9.-]/g, '_')}.lock`;

export function crontab(slots: readonly Slot[]): string {
  const lines = slots.map((s) => {
    const [h, m] = hhmm(s.startMinute);
    return `${m} ${h} * * * flock /tmp/${lockOf(s.host)} npx efa-sync run ${s.jobFile} --log-format json >> logs/${s.id}.log 2>&1`;
  });
  return [
    '# efa-sync: one line per job, written by efa-sync init. Times are UTC; the jobs of one upstream host share',
    '# the day in equal slots and a flock, so two of them never ask the same server at once.',
    '# Install: crontab -l | cat - this-file | crontab -   (run from the directory holding jobs/ and logs/)',
    'CRON_TZ=UTC',
    'DATABASE_URL=postgres://efa_etl@localhost:5432/efa',
    ...lines,
  ].join('\n') + '\n';
}

export function systemdUnits(slots: readonly Slot[], workDir = '/var/lib/efa-sync'): Record<string, string> {
  const files: Record<string, string> = {};
  for (const s of slots) {
    const [h, m] = hhmm(s.startMinute);
    files[`efa-sync-${s.id}.service`] = [
      '[Unit]', `Description=efa-sync nightly run of ${s.id} (${s.host})`, 'After=network-online.target', 'Wants=network-online.target', '',
      '[Service]', 'Type=oneshot', `WorkingDirectory=${workDir}`, 'EnvironmentFile=-/etc/efa-sync/env',
      `ExecStart=/usr/bin/flock /run/${lockOf(s.host)} /usr/bin/npx efa-sync run ${s.jobFile} --log-format json`,
      '# 3 (partial) and 4 (another run holds the lock) are outcomes, not failures of the unit.', 'SuccessExitStatus=3 4', '',
    ].join('\n');
    files[`efa-sync-${s.id}.timer`] = [
      '[Unit]', `Description=efa-sync ${s.id} nightly`, '',
      '[Timer]', `OnCalendar=*-*-* ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00 UTC`, 'Persistent=true', '',
      '[Install]', 'WantedBy=timers.target', '',
    ].join('\n');
  }
  return files;
}

/**
 * Kubernetes objects: a ConfigMap holding the job files, then one CronJob per job (YAML documents),
 * in the shape docs/deploy/cronjob.yaml explains.
 */
export function cronJobs(slots: readonly Slot[], jobTexts: Readonly<Record<string, string>>, image = 'registry.example.org/efa-sync:0.1.0'): string {
  const configMap = [
    'apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: efa-sync-jobs', 'data:',
    ...slots.flatMap((s) => [`  ${s.id}.json: |`, ...(jobTexts[s.id] ?? '{}').trimEnd().split('\n').map((l) => `    ${l}`)]),
  ].join('\n');
  return [configMap, ...slots
    .map((s) => {
      const [h, m] = hhmm(s.startMinute);
      return [
        'apiVersion: batch/v1', 'kind: CronJob', 'metadata:', `  name: efa-sync-${s.id}`, '  labels:', `    efa-sync/upstream: ${JSON.stringify(s.host)}`, 'spec:',
        `  schedule: "${m} ${h} * * *"`, '  timeZone: "Etc/UTC"', '  concurrencyPolicy: Forbid', '  jobTemplate:', '    spec:', '      backoffLimit: 6', '      template:', '        spec:',
        '          restartPolicy: Never', '          containers:', '            - name: efa-sync', `              image: ${image}`,
        `              args: ["run", "/jobs/${s.id}.json", "--log-format", "json"]`, '              env:', '                - name: DATABASE_URL',
        '                  valueFrom: { secretKeyRef: { name: efa-sync, key: database-url } }', '              volumeMounts:', '                - { name: jobs, mountPath: /jobs, readOnly: true }',
        '          volumes:', '            - name: jobs', '              configMap: { name: efa-sync-jobs }',
      ].join('\n');
    })]
    .join('\n---\n') + '\n';
}
