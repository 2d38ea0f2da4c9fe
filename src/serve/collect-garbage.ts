import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A large answer (a client's `select repeat('x', 250000000)`) comes from PGlite's worker as one
 * buffer, which serve writes to the client or its spool file and drops at once. Its memory is
 * outside V8's heap, so an idle server does not collect it: measured, four such answers left serve's
 * RSS at 1.55× its idle size 30 s after the client left, and a full collection brought it back to
 * idle (611 MB of external memory to 130). So when a large answer has passed, a full collection is
 * scheduled: one soon after, one a few seconds later for a buffer still held then (a statement
 * running on for a client that left).
 */

/** An answer at least this large schedules a collection. */
export const LARGE_ANSWER_BYTES = 32 * 1024 * 1024;
const PASSES_MS = [1_000, 5_000] as const;

let collector: (() => void) | null | undefined;

/** V8's full collection, exposed without a command-line flag; null when this V8 refuses it. */
function fullCollection(): (() => void) | null {
  if (collector !== undefined) return collector;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    collector = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    collector = null;
  }
  return collector;
}

let scheduled = false;

/** Schedules the collections (once at a time, however many large answers pass meanwhile). */
export function collectAfterLargeAnswer(): void {
  const gc = fullCollection();
  if (gc === null || scheduled) return;
  scheduled = true;
  for (const [i, ms] of PASSES_MS.entries()) {
    setTimeout(() => {
      gc();
      if (i === PASSES_MS.length - 1) scheduled = false;
    }, ms).unref();
  }
}
