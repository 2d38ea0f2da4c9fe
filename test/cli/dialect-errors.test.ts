import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

const sample = fileURLToPath(new URL('../../../shared/efa-samples/legacy-json/stopfinder-jlnstrk-transit-mvv.json', import.meta.url));

describe.skipIf(!existsSync(sample))('a deployment answering in its own grid', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // The real MVV answer, sent without coordOutputFormat: coordinates in the MVTT grid.
    const body = readFileSync(sample);
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/efa`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('lookup exits 2 with a message naming coordOutputFormat', async () => {
    const r = await runCli(['lookup', 'Max', '--base-url', url, '--dialect', 'legacy']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('coordOutputFormat');
    expect(r.stderr).toContain('4475708,812930');
  });
});

describe('lookup against the simulator in each dialect', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 2, size: 800, dialect: 'rapidjson' });
  });
  afterAll(async () => sim?.stop());

  it('prints the stop with its id, best match marked', async () => {
    const stop = sim.world.stops()[0]!;
    const r = await runCli(['lookup', stop.id, '--base-url', sim.url, '--dialect', 'auto', '--json']);
    expect(r.code).toBe(0);
    const hits = JSON.parse(r.stdout) as { id: string; isBest: boolean }[];
    expect(hits[0]).toMatchObject({ id: stop.id, isBest: true });
  });
});
