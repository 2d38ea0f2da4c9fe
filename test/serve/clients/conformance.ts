import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBuiltCli } from '../../helpers/built-cli.js';
import { serveBuilt, type Serving } from '../serving.js';
import { runProgram, type ClientSpec } from './programs.js';
import { Reference, type ClientResult } from './results.js';

/*
 * The one warehouse and the one `serve` every client of the suite talks to, made as a user makes them: the
 * built CLI's `demo` (what `npm start` runs: the simulator, jobs/demo.json, the embedded database), then
 * `efa-sync serve` on it with its defaults (statement check on, read-only). Shared by the test and by
 * `npm run docs:serve-clients`, so the table in the docs is what the suite saw.
 */

export interface Conformance {
  /** The serve the clients talk to now. */
  readonly served: Serving;
  readonly ref: Reference;
  /** Stops this serve and starts another on the same warehouse with `env` added (the statement check off, in the test). */
  serveAgain(env: NodeJS.ProcessEnv): Promise<void>;
  stop(): Promise<void>;
}

/** What every client is checked against, as psql (the client that works, issue 53) reads it through serve. */
async function referenceFromPsql(port: number): Promise<Reference> {
  const sql = `select json_build_object(
    'pins', (select count(*) from efa.pins),
    'umlaut', (select name from efa.stops where name like '%ü%' order by stop_id limit 1),
    'keysMd5', (select md5(string_agg(pin_key, ',' order by pin_key)) from efa.pins))`;
  const ran = await runProgram('psql', ['-X', '-At', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-c', sql], { PGCLIENTENCODING: 'UTF8' });
  if (ran.code !== 0) throw new Error(`psql could not read the reference through serve: ${ran.stderr}`);
  return Reference.parse(JSON.parse(ran.stdout));
}

export async function startConformance(): Promise<Conformance> {
  const dir = await mkdtemp(join(tmpdir(), 'efa-sync-serve-clients-'));
  try {
    const demo = await runBuiltCli(['demo', '--db', `pglite:${join(dir, 'db')}`, '--report-out', join(dir, 'report.html')], {}, 900_000);
    if (demo.code !== 0) throw new Error(`demo exited ${demo.code}: ${demo.stderr.slice(-2000)}`);
    let served = await serveBuilt(join(dir, 'db'), []);
    const stopServe = async (): Promise<void> => {
      served.child.kill('SIGTERM');
      await served.exited;
    };
    const stop = async (): Promise<void> => {
      await stopServe();
      await rm(dir, { recursive: true, force: true });
    };
    try {
      const ref = await referenceFromPsql(served.port);
      return {
        get served() {
          return served;
        },
        ref,
        serveAgain: async (env) => {
          await stopServe();
          served = await serveBuilt(join(dir, 'db'), [], env);
        },
        stop,
      };
    } catch (error) {
      await stop();
      throw error;
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** One client against the served warehouse; a client whose runtime is missing here is reported skipped, with why. */
export async function runClient(spec: ClientSpec, c: Conformance): Promise<ClientResult> {
  const base = { id: spec.id, label: spec.label, aspects: spec.aspects, note: spec.note };
  const missing = spec.missing();
  if (missing !== undefined) return { ...base, skipped: missing, checks: [] };
  return { ...base, checks: await spec.run(c.served.port, c.ref) };
}
