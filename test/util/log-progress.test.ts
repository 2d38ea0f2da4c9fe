import { Writable } from 'node:stream';
import xterm from '@xterm/headless';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Progress } from '../../src/sweep/nightly/progress.js';
import { createLogger, LogOutput, type OutputStream } from '../../src/util/log.js';

/** A stream that records what is written, claiming to be a terminal of the given width or not. */
function fakeStream(tty: boolean): OutputStream & { text: () => string } {
  let written = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      written += chunk.toString();
      done();
    },
  });
  return Object.assign(stream, { isTTY: tty, columns: 120, rows: 30, text: () => written });
}

/** What a person sees: the written bytes played through a real terminal emulator, as screen lines. */
async function screen(bytes: string): Promise<string[]> {
  const term = new xterm.Terminal({ cols: 120, rows: 30, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(bytes.replace(/(?<!\r)\n/g, '\r\n'), resolve));
  const lines: string[] = [];
  for (let i = 0; i < term.buffer.active.length; i++) lines.push(term.buffer.active.getLine(i)?.translateToString(true) ?? '');
  term.dispose();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const barPattern = /^coordInfo \[[#.]{24}\] \d+\/\d+ · \d+ req/;

describe('log lines and the progress bar', () => {
  // Only the progress clock is faked: the terminal emulator needs real timers to process writes.
  beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  it('on a terminal, never share a line: the bar stays below whole log lines and is gone after the run', async () => {
    const stream = fakeStream(true);
    const output = new LogOutput(stream);
    // The status line is drawn once log-update is loaded, which a terminal's output starts at once.
    await output.ready;
    const log = createLogger({ format: 'pretty', output });
    let requests = 0;
    const progress = new Progress(log, { requests: () => requests, retries: () => 4, allowedRate: () => 10 }, 'bar');
    progress.start();
    progress.phase('coordInfo');
    progress.addTotal(15);
    vi.advanceTimersByTime(300);
    log.info('coordInfo: 15 tiles planned from 3000 known pins');
    requests = 7;
    progress.unitDone();
    vi.advanceTimersByTime(300);
    log.warn('capped tile 0/9.1,48.7,9.2,48.8 (500 hits): objects beyond the cap may be missing');
    progress.unitDone(true);
    vi.advanceTimersByTime(300);

    const during = await screen(stream.text());
    expect(during).toHaveLength(3);
    expect(during[0]).toMatch(/INFO: coordInfo: 15 tiles planned from 3000 known pins$/);
    expect(during[1]).toMatch(/WARN: capped tile 0\/9\.1,48\.7,9\.2,48\.8 \(500 hits\): objects beyond the cap may be missing$/);
    expect(during[2]).toMatch(barPattern);
    expect(during[2]).toContain('2/15 · 7 req');
    // Retries are not failures: a retried request that succeeded is no error.
    expect(during[2]).toContain('4 retries · 1 failed');

    progress.stop();
    log.info('run 1 succeeded in 12.3s');
    const after = await screen(stream.text());
    expect(after).toHaveLength(3);
    expect(after[2]).toMatch(/INFO: run 1 succeeded in 12\.3s$/);
    expect(after.some((l) => barPattern.test(l))).toBe(false);
  });

  it('elsewhere, write only whole JSON lines: no bar, no carriage return, progress as log lines', () => {
    const stream = fakeStream(false);
    const log = createLogger({ format: 'json', stream });
    const progress = new Progress(log, { requests: () => 3, retries: () => 0, allowedRate: () => 10 }, 'lines');
    progress.start();
    progress.phase('servingLines');
    progress.addTotal(4);
    progress.unitDone();
    vi.advanceTimersByTime(5_100);
    log.info('between');
    progress.stop();
    // A bar asked for on a stream that is not a terminal draws nothing.
    const bar = new Progress(log, { requests: () => 3, retries: () => 0, allowedRate: () => 10 }, 'bar');
    bar.start();
    vi.advanceTimersByTime(1_000);
    bar.stop();

    const text = stream.text();
    expect(text).not.toMatch(/[\r\x1b]/);
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l['msg'])).toEqual(['sweeping servingLines', 'progress', 'between']);
    expect(lines[1]).toMatchObject({ level: 'info', phase: 'servingLines', done: 1, total: 4, requests: 3 });
  });
});

describe('the logger', () => {
  it('writes one JSON object per line with time, level and msg, and redacts secrets', () => {
    const stream = fakeStream(false);
    const log = createLogger({ format: 'json', stream, level: 'info' });
    log.debug('not shown');
    log.info('opened postgres://efa:hunter2@db/efa', { db: 'postgres://efa:hunter2@db/efa', password: 'hunter2', n: 1 });
    const lines = stream.text().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'info', msg: 'opened postgres://efa:***@db/efa', db: 'postgres://efa:***@db/efa', password: '***', n: 1 });
    expect(typeof line['time']).toBe('string');
    expect(stream.text()).not.toContain('hunter2');
  });

  it('pretty-prints one line per message with its level and fields', () => {
    const stream = fakeStream(false);
    createLogger({ format: 'pretty', stream }).warn('rate lowered', { requestsPerSecond: 2.5 });
    expect(stream.text()).toMatch(/^\[\d\d:\d\d:\d\d\] WARN: rate lowered \{"requestsPerSecond":2\.5\}\n$/);
  });

  it('shares one status line between loggers on the same output', async () => {
    const stream = fakeStream(true);
    const output = new LogOutput(stream);
    const a = createLogger({ format: 'pretty', output });
    const b = createLogger({ format: 'json', output });
    a.status?.('working…');
    b.error('boom');
    a.status?.(undefined);
    const lines = await screen(stream.text());
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'error', msg: 'boom' });
  });
});

describe('the ETA', () => {
  /**
   * A night as the bar sees it: CoordInfo from one tile that splits (the top levels always, a third
   * of the next level's tiles once more), then the ServingLines of the 60 stops the plan knows, one
   * unit every 0.2 s with a retry every tenth request. The ETA must count down with the clock, not
   * jump up each time tiles split or a phase adds its units, and stay near the time really left.
   */
  it('counts down steadily while tiles split and phases start, and stays near the time left', () => {
    let now = 0;
    let requests = 0;
    const progress = new Progress(createLogger({ format: 'json', stream: fakeStream(false) }), {
      requests: () => requests, retries: () => Math.floor(requests / 10), allowedRate: () => 20,
    }, 'off', { plannedUnits: 1 + 60, now: () => now });
    progress.start();
    progress.phase('coordInfo');
    progress.addTotal(1);
    const queue = [{ depth: 0, index: 0 }];
    const work: (() => void)[] = [];
    while (queue.length > 0) {
      const tile = queue.shift() as { depth: number; index: number };
      const splits = tile.depth < 2 || (tile.depth === 2 && tile.index % 3 === 0);
      work.push(() => {
        if (splits) {
          const children = [0, 1, 2, 3].map((k) => ({ depth: tile.depth + 1, index: tile.index * 4 + k }));
          progress.split(children.length);
        }
        progress.unitDone();
      });
      if (splits) for (let k = 0; k < 4; k++) queue.push({ depth: tile.depth + 1, index: tile.index * 4 + k });
    }
    const coordUnits = work.length;
    work.push(() => {
      progress.phase('servingLines');
      progress.addTotal(60);
    });
    for (let i = 0; i < 60; i++) work.push(() => progress.unitDone());
    const unitS = 0.2;
    const etas: { at: number; eta: number; left: number }[] = [];
    let step = 0;
    for (const [i, w] of work.entries()) {
      w();
      if (i === coordUnits) continue; // the phase change takes no time
      requests += i % 10 === 9 ? 2 : 1;
      now += unitS * 1000 * (i % 10 === 9 ? 2 : 1);
      if (now >= (step + 1) * 1000) {
        step = Math.floor(now / 1000);
        const eta = progress.snapshot().etaS;
        const unitsLeft = work.length - 1 - i - (i < coordUnits ? 1 : 0);
        if (eta !== null) etas.push({ at: now / 1000, eta, left: unitsLeft * unitS * 1.1 });
      }
    }
    expect(coordUnits).toBeGreaterThan(25);
    expect(etas.length).toBeGreaterThan(10);
    for (const [k, e] of etas.entries()) {
      const previous = etas[k - 1];
      // From one second to the next the ETA moves by the second gone and a few more at most.
      if (previous) expect(Math.abs(e.eta - (previous.eta - (e.at - previous.at))), `at ${e.at}s: ${previous.eta}s -> ${e.eta}s`).toBeLessThanOrEqual(4);
      // Near the time really left (a naive units-left × time-per-unit says 2 s where 21 s are left).
      if (e.left > 3) expect(Math.abs(e.eta - e.left), `at ${e.at}s: ETA ${e.eta}s, ${e.left.toFixed(1)}s left`).toBeLessThanOrEqual(Math.max(3, 0.25 * e.left));
    }
  });
});
