import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { excerpt } from '../../src/efa/excerpt.js';
import { formatTable } from '../../src/util/table.js';
import { terminalText } from '../../src/util/terminal-text.js';
import { runBuiltCli } from '../helpers/cli.js';

/**
 * Issue 56 point 3: upstream text reaches a terminal escaped. A name that clears the screen
 * (ESC[2J), sets the window title (ESC]0;…BEL), plants an OSC 8 link, forges a row with CR, or
 * turns the line around (U+202E), and an error body full of them, through the built CLI.
 */
const HOSTILE = 'Hbf\u001b[2J\u001b]0;owned\u0007\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\\rforged\u202etxt.exe\u009b31m\u0085end';

/** The bytes a terminal would act on: ESC, BEL, CR, C1 controls and the bidi override, as UTF-8. */
function steeringBytes(text: string): string[] {
  const found: string[] = [];
  const bytes = Buffer.from(text, 'utf8');
  for (const [name, seq] of [['ESC', [0x1b]], ['BEL', [0x07]], ['CR', [0x0d]], ['U+202E', [0xe2, 0x80, 0xae]], ['U+009B', [0xc2, 0x9b]], ['U+0085', [0xc2, 0x85]]] as const) {
    if (bytes.includes(Buffer.from(seq))) found.push(name);
  }
  return found;
}

describe('terminalText', () => {
  it('writes C0 and C1 controls, DEL and bidi controls as escapes, and leaves other text alone', () => {
    expect(terminalText('a\u001b[2Jb\u0007c\rd\ne\tf\u007fg\u009bh\u202ei\u2066j')).toBe('a\\x1b[2Jb\\x07c\\rd\\ne\\tf\\x7fg\\x9bh\\u202ei\\u2066j');
    expect(terminalText('Stuttgart Hbf (tief) – Gleis 3 😀 Mieträder')).toBe('Stuttgart Hbf (tief) – Gleis 3 😀 Mieträder');
    expect(steeringBytes(terminalText(HOSTILE))).toEqual([]);
  });

  it('keeps a table one row per record, and an excerpt one line without steering bytes', () => {
    const table = formatTable(['id', 'name'], [['1', HOSTILE], ['2', 'Ok']]);
    expect(table.split('\n')).toHaveLength(5);
    expect(steeringBytes(table)).toEqual([]);
    expect(steeringBytes(excerpt(`<html>${HOSTILE}</html>`))).toEqual([]);
    // A cut through a surrogate pair leaves no lone half (efa.runs keeps error text in jsonb).
    expect(excerpt('x'.repeat(198) + '😀😀')).toBe(`${'x'.repeat(198)}\ufffd…`);
  });
});

describe('lookup and doctor against a server answering terminal escapes (built CLI)', () => {
  let server: Server;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname.startsWith('/ok/') && url.pathname.endsWith('XML_STOPFINDER_REQUEST')) {
        const body = { locations: [{ id: `de:1\u001b]0;id\u0007`, name: HOSTILE, type: `stop\r`, isBest: true, matchQuality: 1000, coord: { lat: 48.78, lon: 9.18 } }] };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        return;
      }
      // Anything else: an error page that is no EFA answer, its text full of escapes.
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`Gateway says: ${HOSTILE}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-terminal-'));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it('lookup prints the hostile stop escaped, on one row', async () => {
    const r = await runBuiltCli(['lookup', 'Hbf', '--base-url', `${base}/ok/`], { EFA_BASE_URL: undefined });
    expect(r.code, r.stderr).toBe(0);
    expect(steeringBytes(r.stdout)).toEqual([]);
    expect(steeringBytes(r.stderr)).toEqual([]);
    expect(r.stdout).toContain('Hbf\\x1b[2J\\x1b]0;owned\\x07');
    expect(r.stdout).toContain('\\rforged\\u202etxt.exe\\x9b31m\\x85end');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(3);
  });

  it('lookup of an error body: the failure line, pretty or JSON, carries no steering byte', async () => {
    for (const format of ['pretty', 'json']) {
      const r = await runBuiltCli(['lookup', 'Hbf', '--base-url', `${base}/bad/`, '--log-format', format], { EFA_BASE_URL: undefined });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/Gateway says/);
      expect(steeringBytes(r.stdout), format).toEqual([]);
      expect(steeringBytes(r.stderr), `${format}: ${r.stderr}`).toEqual([]);
    }
  });

  it('doctor shows the error body excerpt escaped', async () => {
    const job = join(dir, 'job.json');
    await writeFile(job, JSON.stringify({
      name: 'terminal', baseUrl: `${base}/bad/`, region: { bbox: [9.1, 48.7, 9.2, 48.8] },
      rateLimit: { requestsPerSecond: 50, concurrency: 2, retries: 0, timeoutMs: 5000 },
      sweeps: { coord: { types: ['STOP'], maxPerRequest: 100 }, stopFinder: { names: [`Hbf${HOSTILE}`] } },
    }));
    const r = await runBuiltCli(['doctor', job, '--db', `pglite:${join(dir, 'none')}`], { DATABASE_URL: undefined, EFA_BASE_URL: undefined });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Gateway says: Hbf\\x1b\[2J/);
    expect(steeringBytes(r.stdout)).toEqual([]);
    expect(steeringBytes(r.stderr)).toEqual([]);
  });
});
