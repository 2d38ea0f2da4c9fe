/**
 * Work handed off without waiting for it to end, up to a weight (rows waiting for the writer):
 * a sweep's request slot is free again once its tile's rows are handed to the writer, so the next
 * answers are asked and parsed while the database writes, instead of every slot waiting for a
 * commit in turn. `add` waits while the backlog is full (memory stays bounded) and always takes
 * one piece of work into an empty backlog, however heavy. The first failure of any piece is thrown
 * by the next `add` (the sweep stops asking) and by `settle`, which waits for all of it.
 */
export interface Backlog {
  add(weight: number, work: () => Promise<void>): Promise<void>;
  /** Waits for every piece handed off; throws the first failure. */
  settle(): Promise<void>;
}

export function createBacklog(maxWeight: number): Backlog {
  const running = new Map<Promise<void>, number>();
  let weight = 0;
  let failed: { error: unknown } | undefined;
  const rethrow = (): void => {
    if (failed) throw failed.error;
  };
  return {
    async add(w, work) {
      rethrow();
      while (running.size > 0 && weight + w > maxWeight) await Promise.race(running.keys());
      rethrow();
      weight += w;
      const piece: Promise<void> = (async () => work())()
        .catch((error: unknown) => {
          failed ??= { error };
        })
        .finally(() => {
          weight -= w;
          running.delete(piece);
        });
      running.set(piece, w);
    },
    async settle() {
      while (running.size > 0) await Promise.all(running.keys());
      rethrow();
    },
  };
}

/**
 * `fn` with a backlog of its own that is settled when it ends: its result once every piece is in,
 * or its own failure (what is still running is waited for first, and its failures are not told
 * over `fn`'s). Sweeps that run one after another and share it write while the next one asks.
 */
export async function withBacklog<T>(maxWeight: number, fn: (backlog: Backlog) => Promise<T>): Promise<T> {
  const backlog = createBacklog(maxWeight);
  let result: T;
  try {
    result = await fn(backlog);
  } catch (error) {
    await backlog.settle().catch(() => undefined);
    throw error;
  }
  await backlog.settle();
  return result;
}
