/**
 * Crash injection for the resume tests: with EFA_SYNC_FAILPOINT=<name>:<n> the process kills
 * itself with SIGKILL (no cleanup, no finally blocks, like a power cut) the n-th time it passes the
 * point called <name>. Unset, a failpoint is one string comparison.
 */
const spec = process.env['EFA_SYNC_FAILPOINT'];
const [wanted, countText] = spec ? spec.split(':') : [];
let remaining = Number(countText ?? 1);

export function failpoint(name: string): void {
  if (wanted !== name) return;
  remaining -= 1;
  if (remaining <= 0) process.kill(process.pid, 'SIGKILL');
}
