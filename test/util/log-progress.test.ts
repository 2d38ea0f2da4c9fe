import { Writable } from 'node:stream';
import xterm from '@xterm/headless';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Progress } from '../../src/sweep/progress.js';
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
    const log = createLogger({ format: 'pretty', stream });
    let requests = 0;
    const progress = new Progress(log, { requests: () => requests }, 'bar');
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
    expect(during[2]).toContain('1 errors');

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
    const progress = new Progress(log, { requests: () => 3 }, 'lines');
    progress.start();
    progress.phase('servingLines');
    progress.addTotal(4);
    progress.unitDone();
    vi.advanceTimersByTime(5_100);
    log.info('between');
    progress.stop();
    // A bar asked for on a stream that is not a terminal draws nothing.
    const bar = new Progress(log, { requests: () => 3 }, 'bar');
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
