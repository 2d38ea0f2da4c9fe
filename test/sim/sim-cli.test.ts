/**
 * `efa-sync sim --stop-ids local --local-id-base <n>` serves a world numbered locally, and the two
 * options are checked as usage (exit 2) before anything starts.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { generateWorld, haversineM, vehiclesAt } from '../../src/sim/index.js';
import { c } from './helpers.js';
import { builtCli } from '../helpers/built-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
type Json = Record<string, unknown>;

/** Starts `efa-sync sim` with these arguments, hands its URL to `use`, then stops it with SIGTERM. */
async function withSimCli(args: readonly string[], use: (url: string) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [builtCli, 'sim', '--port', '0', ...args], {
    cwd: root, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.startsWith('http://'));
        if (line) resolve(line.trim());
      });
      child.once('close', (code) => reject(new Error(`sim exited ${String(code)} before printing its URL: ${stderr}`)));
    });
    await use(url);
  } finally {
    const closed = once(child, 'close');
    child.kill('SIGTERM');
    await closed;
  }
}

describe('efa-sync sim --stop-ids / --local-id-base', () => {
  it('serves local stop ids from the base, with the global id in STOP_GLOBAL_ID', () =>
    withSimCli(['--size', '1500', '--dialect', 'legacy', '--stop-ids', 'local', '--local-id-base', '7000000'], async (url) => {
      const reply = await fetch(`${url}/XML_COORD_REQUEST?outputFormat=JSON&coord=${c(9.18, 48.777)}&inclFilter=1&type_1=STOP&radius_1=2000`);
      expect(reply.status).toBe(200);
      const pins = ((await reply.json()) as Json)['pins'] as Json[];
      expect(pins.length).toBeGreaterThan(0);
      for (const pin of pins) {
        expect(Number(pin['id'])).toBeGreaterThanOrEqual(7_000_000);
        const globalId = (pin['attrs'] as Json[]).find((a) => a['name'] === 'STOP_GLOBAL_ID')?.['value'];
        expect(globalId).toMatch(/^de:\d{5}:\d+$/);
      }
    }), 60_000);

  it('rejects the options as usage errors, naming the option', async () => {
    const cases: [string[], RegExp][] = [
      [['--local-id-base', '5'], /--local-id-base: applies only with --stop-ids local/],
      [['--stop-ids', 'local', '--local-id-base', '1.5'], /--local-id-base: expected a whole number/],
      [['--stop-ids', 'dhid'], /--stop-ids/],
      [['--stop-ids', 'local', '--world', '/nonexistent'], /--stop-ids: applies only to a generated world/],
      [['--clock', '2026-11-24T10:00'], /--clock: expected an ISO 8601 instant with a zone/],
      [['--clock', 'tomorrow'], /--clock: expected an ISO 8601 instant/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['sim', '--port', '0', '--size', '200', ...args], {}, 30_000);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  }, 120_000);
});

describe('efa-sync sim --clock', () => {
  it('answers the moving world as of the fixed clock, the same for every request', () =>
    withSimCli(['--size', '1500', '--clock', '2026-11-24T08:30:00+01:00'], async (url) => {
      const query = `${url}/XML_COORD_REQUEST?outputFormat=JSON&coord=${c(9.18, 48.777)}&inclFilter=1&type_0=ANY&radius_0=3000&vehSF=BIKE`;
      const first = await (await fetch(query)).text();
      await new Promise((r) => setTimeout(r, 1100));
      expect(await (await fetch(query)).text()).toBe(first);
      const pins = (JSON.parse(first) as Json)['pins'] as Json[];
      const world = generateWorld({ seed: 1, size: 1500 });
      const truth = vehiclesAt(world, new Date('2026-11-24T08:30:00+01:00'))
        .filter((v) => v.kind === 'BIKE' && haversineM(9.18, 48.777, v.lon, v.lat) <= 3000);
      expect(truth.length).toBeGreaterThan(5);
      expect(pins.map((p) => p['id']).sort()).toEqual(truth.map((v) => v.id));
    }), 60_000);
});
