import { describe, expect, it } from 'vitest';
import { createBacklog, withBacklog } from '../../../src/sweep/nightly/backlog.js';

/** A piece of work the test ends by hand. */
function gate(): { promise: Promise<void>; open: () => void; fail: (e: Error) => void } {
  let open!: () => void;
  let fail!: (e: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('a backlog of handed-off writes', () => {
  it('takes work until its weight is reached, then makes the next add wait for room', async () => {
    const backlog = createBacklog(10);
    const a = gate();
    const b = gate();
    await backlog.add(6, () => a.promise);
    await backlog.add(4, () => b.promise);
    let third = false;
    const adding = backlog.add(5, async () => void (third = true)).then(() => 'added');
    await tick();
    expect(third).toBe(false);
    a.open();
    expect(await adding).toBe('added');
    expect(third).toBe(true);
    b.open();
    await backlog.settle();
  });

  it('always takes one piece into an empty backlog, however heavy', async () => {
    const backlog = createBacklog(10);
    let ran = false;
    await backlog.add(1_000, async () => void (ran = true));
    await backlog.settle();
    expect(ran).toBe(true);
  });

  it('throws the first failure at the next add and at settle, after the rest has ended', async () => {
    const backlog = createBacklog(100);
    const slow = gate();
    let slowEnded = false;
    await backlog.add(1, () => slow.promise.then(() => void (slowEnded = true)));
    await backlog.add(1, async () => {
      throw new Error('lease lost');
    });
    await tick();
    await expect(backlog.add(1, async () => undefined)).rejects.toThrow('lease lost');
    const settled = backlog.settle().then(
      () => 'ok',
      (e: Error) => e.message,
    );
    await tick();
    expect(slowEnded).toBe(false);
    slow.open();
    expect(await settled).toBe('lease lost');
    expect(slowEnded).toBe(true);
  });

  it('settle waits for work added while it waits', async () => {
    const backlog = createBacklog(100);
    const first = gate();
    let second = false;
    await backlog.add(1, () => first.promise.then(() => backlog.add(1, async () => void (second = true))));
    const settled = backlog.settle();
    first.open();
    await settled;
    expect(second).toBe(true);
  });

  it('withBacklog returns once the work handed off is in, so sweeps sharing it overlap and the caller waits once', async () => {
    const order: string[] = [];
    const first = gate();
    const result = withBacklog(100, async (writes) => {
      await writes.add(1, () => first.promise.then(() => void order.push('first written')));
      order.push('second sweep asks');
      await writes.add(1, async () => void order.push('second written'));
      return 'swept';
    });
    await tick();
    expect(order).toEqual(['second sweep asks', 'second written']);
    first.open();
    expect(await result).toBe('swept');
    expect(order).toEqual(['second sweep asks', 'second written', 'first written']);
  });

  it("withBacklog tells its own failure, not a write's, after what still runs has ended", async () => {
    const slow = gate();
    let slowEnded = false;
    const result = withBacklog(100, async (writes) => {
      await writes.add(1, () => slow.promise.then(() => void (slowEnded = true)));
      await writes.add(1, async () => {
        throw new Error('write failed');
      });
      throw new Error('sweep failed');
    });
    const told = result.then(
      () => 'ok',
      (e: Error) => e.message,
    );
    await tick();
    expect(slowEnded).toBe(false);
    slow.open();
    expect(await told).toBe('sweep failed');
    expect(slowEnded).toBe(true);
  });
});
