/**
 * Fault injection for the tests that must catch the process at one point:
 * - EFA_SYNC_FAILPOINT=<name>:<n>: the process kills itself with SIGKILL (no cleanup, no finally
 *   blocks, like a power cut) the n-th time it passes the point called <name> (the resume tests);
 * - EFA_SYNC_FAILPOINT=<name>:<ms>ms: every pass through <name> blocks for <ms> milliseconds, so a
 *   test can signal the process while it is between two passes (the export's signal tests), on
 *   every database alike, whatever it buffers.
 * Unset, a failpoint is one string comparison.
 */
const spec = process.env['EFA_SYNC_FAILPOINT'];
const [wanted, countText] = spec ? spec.split(':') : [];
const delayMs = /^(\d{1,5})ms$/.exec(countText ?? '')?.[1];
let remaining = Number(countText ?? 1);

export function failpoint(name: string): void {
  if (wanted !== name) return;
  if (delayMs !== undefined) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(delayMs));
    return;
  }
  remaining -= 1;
  if (remaining <= 0) process.kill(process.pid, 'SIGKILL');
}
