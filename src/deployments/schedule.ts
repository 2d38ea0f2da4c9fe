/**
 * Scheduler files for many catalogue jobs (`efa-sync init --country DE`): one crontab line, one systemd
 * service and timer, one Kubernetes CronJob per job. Jobs of one upstream (the base URL's host: efa-bw.de
 * serves NVBW, bwegt and BVB) start one after another, each when the previous one's planned hours at the
 * polite rate have passed, so the same server is never asked by two of them at once; crontab and systemd
 * also hold a lock per host (flock), which keeps that true when a night runs longer than planned.
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
  /** Minutes it is planned to take, rounded up to a quarter hour. */
  readonly plannedMinutes: number;
}

/** Minutes after midnight UTC the first job of every upstream starts. */
export const FIRST_START_MINUTE = 60;
/** Quiet minutes between two jobs of one upstream. */
export const GAP_MINUTES = 15;

const quarter = (minutes: number): number => Math.max(15, Math.ceil(minutes / 15) * 15);

/** Start times: per upstream host, one job after another; different hosts start together. */
export function staggerJobs(jobs: readonly ScheduledJob[]): Slot[] {
  const next = new Map<string, number>();
  return [...jobs]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((job) => {
      const host = new URL(job.baseUrl).host;
      const startMinute = next.get(host) ?? FIRST_START_MINUTE;
      const plannedMinutes = quarter(job.hours * 60);
      next.set(host, startMinute + plannedMinutes + GAP_MINUTES);
      return { ...job, host, startMinute, plannedMinutes };
    });
}

/** Hosts whose jobs do not fit one after another into a day: their nights would overlap the next ones. */
export function overfullHosts(slots: readonly Slot[]): string[] {
  const ends = new Map<string, number>();
  for (const s of slots) ends.set(s.host, Math.max(ends.get(s.host) ?? 0, s.startMinute + s.plannedMinutes));
  return [...ends].filter(([, end]) => end - FIRST_START_MINUTE > 24 * 60 - GAP_MINUTES).map(([host]) => host);
}

const hhmm = (minute: number): [number, number] => [Math.floor((minute % 1440) / 60), minute % 60];
const lockOf = (host: string): string => `efa-sync-${host.replace(/[^A-Za-z0-9.-]/g, '_')}.lock`;

export function crontab(slots: readonly Slot[]): string {
  const lines = slots.map((s) => {
    const [h, m] = hhmm(s.startMinute);
    return `${m} ${h} * * * flock /tmp/${lockOf(s.host)} npx efa-sync run ${s.jobFile} --log-format json >> logs/${s.id}.log 2>&1`;
  });
  return [
    '# efa-sync: one line per job, written by efa-sync init. Times are UTC; jobs of one upstream host start one',
    '# after another (planned hours at the polite rate) and share a flock, so they never overlap.',
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

/** Kubernetes CronJobs, one per job (YAML documents), the job files from the ConfigMap docs/deploy/cronjob.yaml describes. */
export function cronJobs(slots: readonly Slot[], image = 'registry.example.org/efa-sync:0.1.0'): string {
  return slots
    .map((s) => {
      const [h, m] = hhmm(s.startMinute);
      const file = s.jobFile.split('/').pop() ?? s.jobFile;
      return [
        'apiVersion: batch/v1', 'kind: CronJob', 'metadata:', `  name: efa-sync-${s.id}`, '  labels:', `    efa-sync/upstream: ${JSON.stringify(s.host)}`, 'spec:',
        `  schedule: "${m} ${h} * * *"`, '  timeZone: "Etc/UTC"', '  concurrencyPolicy: Forbid', '  jobTemplate:', '    spec:', '      backoffLimit: 6', '      template:', '        spec:',
        '          restartPolicy: Never', '          containers:', '            - name: efa-sync', `              image: ${image}`,
        `              args: ["run", "/jobs/${file}", "--log-format", "json"]`, '              env:', '                - name: DATABASE_URL',
        '                  valueFrom: { secretKeyRef: { name: efa-sync, key: database-url } }', '              volumeMounts:', '                - { name: jobs, mountPath: /jobs, readOnly: true }',
        '          volumes:', '            - name: jobs', '              configMap: { name: efa-sync-jobs }',
      ].join('\n');
    })
    .join('\n---\n') + '\n';
}
