/**
 * Issue 55, acceptance: real recorded answers of deployments, tried as a new user would. The entry is
 * found with `deployments --near` at a recorded stop, `init --bbox` writes a job around the stops, the
 * recorded body is served as the deployment's answer (through --base-url), and the night stores every
 * recorded stop under the entry's id.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
import { dialectFor } from '../../src/efa/dialects/index.js';
import { SAMPLES_DIR } from '../efa/samples.js';
import { createTestDbUrl, type TestDbUrl } from '../helpers/db.js';
import { cliIn } from './cli-in.js';
import { RECORDED, recordedBody, recordedBytes, type RecordedAnswer } from './recorded-samples.js';

/** The recorded CoordInfo answers of the entries' own dialects: what a night of that entry asks. */
const NIGHTS = RECORDED.filter((a) => a.operation === 'coordInfo' && ['de-vrr', 'it-sta', 'au-nsw'].includes(a.entry) && a.types?.[0] !== 'POI_POINT');

/** Answers every CoordInfo request (under its EFA name or a gateway path) with the recorded body; 404 otherwise. */
function serveRecorded(answer: RecordedAnswer): Promise<Server> {
  const body = recordedBytes(answer.file);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (!/\/(XML_COORD_REQUEST|coord)$/.test(path)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': answer.format === 'xml' ? 'text/xml' : 'application/json; charset=utf-8' }).end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(!existsSync(SAMPLES_DIR))('a night against a recorded answer, entry found by --near', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-recorded-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const answer of NIGHTS) {
    it(`${answer.file} → ${answer.entry}`, async () => {
      const records = dialectFor(answer.format).parse.coordInfo(recordedBody(answer), { requestedTypes: [...(answer.types ?? [])] }).records;
      const lons = records.map((r) => r.coord.lon);
      const lats = records.map((r) => r.coord.lat);
      const first = records[0]!.coord;

      const near = await cliIn(dir, ['deployments', '--near', `${first.lon},${first.lat}`, '--json']);
      expect(near.code, near.stderr).toBe(0);
      const found = (JSON.parse(near.stdout) as { id: string }[]).map((e) => e.id);
      expect(found).toContain(answer.entry);

      const bbox = [Math.min(...lons) - 0.01, Math.min(...lats) - 0.01, Math.max(...lons) + 0.01, Math.max(...lats) + 0.01].map((v) => v.toFixed(4)).join(',');
      const file = `${answer.entry}-${answer.types?.[0] ?? ''}.json`;
      const init = await cliIn(dir, ['init', answer.entry, '--bbox', bbox, '--out', file]);
      expect(init.code, init.stderr).toBe(0);
      // The recorded request asked for one object type and no notices: the job asks the same.
      const job = JSON.parse(await readFile(join(dir, file), 'utf8')) as { sweeps: Record<string, unknown> };
      job.sweeps = { coord: { types: answer.types, maxPerRequest: 500 } };
      await writeFile(join(dir, file), JSON.stringify(job));

      const server = await serveRecorded(answer);
      let db: TestDbUrl | undefined;
      try {
        db = await createTestDbUrl();
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
        const run = await cliIn(dir, ['run', file, '--base-url', base, '--db', db.url, '--json'], { EFA_AUTHORIZATION: 'apikey recorded' });
        expect(run.code, run.stderr.slice(-2000)).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ source: answer.entry, status: 'succeeded', rejects: 0 });
        const opened = await openDb(db.url);
        try {
          const stored = await sql<{ id: string }>`SELECT id FROM efa.pins WHERE source = ${answer.entry} AND deleted_at IS NULL ORDER BY id`.execute(opened.kysely);
          expect(stored.rows.map((r) => r.id).sort()).toEqual([...new Set(records.map((r) => r.id))].sort());
        } finally {
          await opened.close();
        }
      } finally {
        server.close();
        await db?.drop();
      }
    });
  }
});
