import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appendBounded } from '../util/bounded-file.js';
import { OPERATION_PATHS, type Operation } from '../efa/operations.js';
import { buildUrl, parseBaseUrl } from '../efa/url.js';
import { ConfigError, errorText } from '../errors.js';
import type { Job } from '../job/index.js';
import type { Logger } from '../util/log.js';
import { redactText, redactUrl } from '../util/redact.js';
import type { RunSummary } from './summary.js';

/**
 * OpenLineage run events of a run (https://openlineage.io/spec/2-0-2/OpenLineage.json): START when
 * the run is opened, then COMPLETE (succeeded or partial: its data is committed), FAIL or ABORT (a
 * stop signal). Sent over HTTP as the OpenLineage clients do (POST of one JSON event to
 * `<url>/api/v1/lineage`, Marquez's endpoint) or appended as one JSON line to a file. Lineage is
 * reporting, never the run's business: a receiver that is down, slow or refusing is a warning.
 */

export const SCHEMA_URL = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';
export const PRODUCER = 'https://github.com/efa-sync/efa-sync/tree/v0.1.0';
const OUTPUT_STATISTICS_SCHEMA = 'https://openlineage.io/spec/facets/1-0-2/OutputStatisticsOutputDatasetFacet.json';
const ERROR_MESSAGE_SCHEMA = 'https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json';
/** The path OpenLineage's HTTP transport posts to when the URL names none (its `endpoint` default). */
export const DEFAULT_ENDPOINT = 'api/v1/lineage';
/** The job namespace when $OPENLINEAGE_NAMESPACE sets none (the clients' variable). */
export const DEFAULT_NAMESPACE = 'efa-sync';
/** No event may hold the run up longer than this. */
export const EMIT_TIMEOUT_MS = 5_000;

export type LineageEventType = 'START' | 'COMPLETE' | 'FAIL' | 'ABORT';

export type LineageTarget = { readonly kind: 'http'; readonly url: URL } | { readonly kind: 'file'; readonly path: string };

/**
 * `--openlineage-url`: an http(s) URL (the receiver's base, e.g. Marquez's http://marquez:5000, to
 * which `api/v1/lineage` is added unless the URL already has a path) or file:///path.ndjson.
 */
export function lineageTarget(text: string, name: string): LineageTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${name}: expected an http(s) URL such as http://marquez:5000 or a file:///path.ndjson URL`, name);
  }
  if (url.protocol === 'file:') return { kind: 'file', path: resolve(fileURLToPath(url)) };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name}: expected an http(s) or file: URL, got a ${url.protocol} URL`, name);
  if (url.pathname === '/' || url.pathname === '') url.pathname = `/${DEFAULT_ENDPOINT}`;
  return { kind: 'http', url };
}

/** What is wrong with an `--openlineage-url` value, or undefined. */
export function lineageUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'expected an http(s) URL such as http://marquez:5000 or a file:///path.ndjson URL';
  }
  return ['http:', 'https:', 'file:'].includes(url.protocol) ? undefined : `expected an http(s) or file: URL, got a ${url.protocol} URL`;
}

/** A UUID (version 5, RFC 9562) for a name: the same efa run always gets the same OpenLineage runId. */
export function uuidV5(name: string, namespace = '6ba7b811-9dad-11d1-80b4-00c04fd430c8'): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The OpenLineage runId of an efa run: UUIDv5 of its source and run id (a resumed run keeps it). */
export const lineageRunId = (source: string, runId: string): string => uuidV5(`efa-sync:${source}:${runId}`);

/** Which EFA operation each sweep of a job calls (the input datasets before the run says). */
const SWEEP_OPERATIONS: Readonly<Record<string, Operation>> = {
  coord: 'coordInfo',
  vehicles: 'coordInfo',
  parking: 'coordInfo',
  stopFinder: 'stopFinder',
  servingLines: 'servingLines',
  addInfo: 'addInfo',
  opArea: 'opArea',
};

export interface LineageDataset {
  readonly namespace: string;
  readonly name: string;
  readonly outputFacets?: Record<string, unknown>;
}

/**
 * The input datasets: one per EFA operation, namespace scheme://host:port of the base URL, name the
 * operation's path. Credentials in the base URL (user info, a key in the query or the path) are not
 * part of either.
 */
export function inputDatasets(job: Job, secrets: readonly string[], operations?: readonly string[]): LineageDataset[] {
  const base = parseBaseUrl(job.baseUrl);
  const port = base.port || (base.protocol === 'https:' ? '443' : '80');
  const namespace = `${base.protocol}//${base.hostname}:${port}`;
  const ops = new Set<Operation>();
  for (const op of operations ?? Object.keys(job.sweeps).map((k) => SWEEP_OPERATIONS[k])) if (op && op in OPERATION_PATHS) ops.add(op as Operation);
  return [...ops].sort().map((op) => ({
    namespace,
    name: redactText(buildUrl(new URL(`${base.origin}${base.pathname}`), job.paths?.[op] ?? OPERATION_PATHS[op], []).pathname, secrets),
  }));
}

/**
 * Where the run's tables live, per OpenLineage's naming: PostgreSQL is `postgres://host:port` with
 * names `<database>.efa.<relation>`; the embedded PGlite database is `file://<its directory>` (no
 * server: the files are the data source) with names `postgres.efa.<relation>`.
 */
export function outputNamespace(dbUrl: string): { namespace: string; database: string } {
  if (dbUrl.startsWith('pglite:')) {
    const dir = dbUrl.slice('pglite:'.length);
    return { namespace: dir === 'memory' ? 'file://memory' : `file://${resolve(dir)}`, database: 'postgres' };
  }
  const url = new URL(dbUrl);
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
  return { namespace: `postgres://${url.hostname || 'localhost'}:${url.port || '5432'}`, database };
}

/** The output datasets: each relation the run wrote, with the rows it wrote there (inserted, updated, marked deleted). */
export function outputDatasets(dbUrl: string, summary: RunSummary | undefined): LineageDataset[] {
  if (!summary) return [];
  const { namespace, database } = outputNamespace(dbUrl);
  return Object.entries(summary.relations)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([relation, s]) => ({
      namespace,
      name: `${database}.efa.${relation}`,
      outputFacets: { outputStatistics: { _producer: PRODUCER, _schemaURL: OUTPUT_STATISTICS_SCHEMA, rowCount: s.inserted + s.updated + s.deleted } },
    }));
}

export interface LineageRun {
  readonly job: Job;
  readonly source: string;
  readonly runId: string;
  readonly dbUrl: string;
  readonly secrets: readonly string[];
  readonly namespace: string;
}

export function lineageEvent(type: LineageEventType, run: LineageRun, o: { summary?: RunSummary; error?: string; at?: Date } = {}): Record<string, unknown> {
  const operations = o.summary ? Object.keys(o.summary.requestsByOperation) : undefined;
  const message = o.error ?? (type === 'FAIL' ? o.summary?.error : undefined);
  return {
    eventType: type,
    eventTime: (o.at ?? new Date()).toISOString(),
    run: {
      runId: lineageRunId(run.source, run.runId),
      facets: message
        ? { errorMessage: { _producer: PRODUCER, _schemaURL: ERROR_MESSAGE_SCHEMA, message: redactText(message, run.secrets), programmingLanguage: 'TypeScript' } }
        : {},
    },
    job: { namespace: run.namespace, name: run.job.name, facets: {} },
    inputs: inputDatasets(run.job, run.secrets, operations),
    outputs: outputDatasets(run.dbUrl, o.summary),
    producer: PRODUCER,
    schemaURL: SCHEMA_URL,
  };
}

export interface LineageEmitter {
  /** Sends one event; resolves within EMIT_TIMEOUT_MS whatever happens, never rejects. */
  emit(event: Record<string, unknown>): Promise<boolean>;
}

/** Sends events to `target`; a failure is one warning line naming the receiver (redacted). */
export function createLineageEmitter(target: LineageTarget, log: Logger, env: NodeJS.ProcessEnv = process.env): LineageEmitter {
  const where = target.kind === 'http' ? redactUrl(target.url) : target.path;
  const apiKey = env['OPENLINEAGE_API_KEY']?.trim();
  return {
    async emit(event) {
      const type = String(event['eventType']);
      try {
        if (target.kind === 'file') {
          // Bounded as the HTTP POST is: a FIFO nobody reads or a hung mount never holds the process.
          await appendBounded(target.path, `${JSON.stringify(event)}\n`, EMIT_TIMEOUT_MS, 'an OpenLineage event');
        } else {
          const res = await fetch(target.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
            body: JSON.stringify(event),
            signal: AbortSignal.timeout(EMIT_TIMEOUT_MS),
            redirect: 'error',
          });
          await res.body?.cancel().catch(() => undefined);
          if (!res.ok) throw new Error(`the receiver answered HTTP ${res.status}`);
        }
        log.debug(`OpenLineage ${type} sent to ${where}`);
        return true;
      } catch (error) {
        log.warn(`could not send the OpenLineage ${type} event to ${where}: ${errorText(error)}; the run goes on`, { openlineageUrl: where });
        return false;
      }
    },
  };
}
