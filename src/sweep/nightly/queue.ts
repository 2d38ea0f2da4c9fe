/**
 * Works through a queue that grows while it is worked on (a capped tile adds its children).
 * `parallel` workers pull items; newest items first, so a split tile's children are finished
 * before far-away work starts and the queue stays short.
 */
export async function drainQueue<T>(initial: readonly T[], parallel: number, work: (item: T) => Promise<readonly T[]>): Promise<void> {
  const queue: T[] = [...initial].reverse();
  let active = 0;
  let failure: unknown = undefined;
  await new Promise<void>((resolve, reject) => {
    const pump = (): void => {
      // After a failure, let the items in flight settle (they may be writing) before giving up.
      if (failure !== undefined) {
        if (active === 0) reject(failure);
        return;
      }
      if (queue.length === 0 && active === 0) {
        resolve();
        return;
      }
      while (active < parallel && queue.length > 0) {
        const item = queue.pop() as T;
        active += 1;
        work(item).then(
          (children) => {
            active -= 1;
            for (let i = children.length - 1; i >= 0; i--) queue.push(children[i] as T);
            pump();
          },
          (error: unknown) => {
            active -= 1;
            failure ??= error;
            pump();
          },
        );
      }
    };
    pump();
  });
}
