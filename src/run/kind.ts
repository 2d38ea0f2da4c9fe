import type { Db, Tx } from '../db/connect.js';
import type { OpenedRun } from '../db/runs.js';
import type { HeldDeletion, RelationCounts, RunMeta, SnapshotMeta } from '../db/run-record.js';
import type { DialectName } from '../efa/dialects/index.js';
import type { ServerMessage } from '../efa/index.js';
import type { Transport } from '../http/types.js';
import type { Job, LoadedJob } from '../job/index.js';
import type { DeploymentTimeZone } from '../job/time-zone.js';
import type { JobClient } from './client.js';
import type { Logger } from '../util/log.js';
import type { EndStatus, RunSummary, UnitCounts } from './summary.js';

/**
 * The kinds of run and the one lifecycle that runs them (lifecycle.ts): the lifecycle opens or
 * resumes the run under the job's lock, probes the upstream, hands the kind a context, and ends the
 * run with what the kind's outcome says; a kind does its own work (the nightly phases, a snapshot).
 */

export interface RunJobOptions {
  readonly loaded: LoadedJob;
  readonly db: Db;
  readonly log: Logger;
  readonly baseUrl?: string | undefined;
  readonly requestsPerSecond?: number | undefined;
  readonly concurrency?: number | undefined;
  readonly progress?: 'bar' | 'lines' | 'off';
  /** The run date, YYYY-MM-DD (default: today, UTC). */
  readonly today?: string;
  readonly transport?: Transport;
  /** Overrides the job's dialect (`--dialect`). */
  readonly dialect?: DialectName | undefined;
  /** Ignore incremental state: plan tiles from scratch, refetch every stop's lines, never resume. */
  readonly full?: boolean;
  /**
   * `--accept-deletions`: `{ runId }` releases exactly what that run held (while it is the job's last
   * finished run); `true` is the deprecated bare flag (any night's share and cycle holds). Neither
   * releases an answer that empties a relation or a night whose region answered nothing.
   */
  readonly acceptDeletions?: boolean | { readonly runId: string };
  readonly signal?: AbortSignal;
  /**
   * Told the run once it is opened (or resumed), with the job as it runs: what a stop signal records
   * and reports, and OpenLineage's START.
   */
  readonly onOpened?: (live: LiveRun) => void;
  /**
   * Told once the run's end is committed (its status final in efa.runs), before upkeep: a stop signal
   * from then on ends the process with this exit code and does not call the run stopped.
   */
  readonly onEnded?: (end: { readonly status: string; readonly exitCode: number }) => void;
  /** Snapshot jobs: the snapshot time (default: now). */
  readonly takenAt?: Date;
  /**
   * When the user started waiting for this run, as a `performance.now()` value (the CLI gives 0, the
   * process's start): a fresh run's started_at is set back to it, so `durationS` and the phases include
   * starting, opening the database and migrating (on PGlite, seconds). Unset: the run starts when opened.
   */
  readonly waitingSinceMs?: number;
  /** The outage circuit's pauses between probes (default 1 s doubling to 30 s); tests shorten them. */
  readonly outagePauses?: { readonly firstPauseMs?: number; readonly maxPauseMs?: number };
}

/** What a run's observers learn when it is opened. */
export interface OpenedRunInfo {
  readonly runId: string;
  readonly source: string;
  readonly resumed: boolean;
  /** The job with the command line's overrides applied. */
  readonly job: Job;
  /** Every credential of the configuration, to redact from what is sent elsewhere. */
  readonly secrets: readonly string[];
}

/** A run under way, as a stop signal sees it: its record and its counters so far. */
export interface LiveRun extends OpenedRunInfo {
  readonly run: OpenedRun;
  /** Requests of the run so far: those of the processes before this one and this one's. */
  requests(): number;
  requestsByOperation(): Readonly<Record<string, number>>;
  retries(): number;
  /** The dialect read so far (for `auto`, the one detected, if any). */
  dialect(): string;
}

/** What a kind is handed: the run as opened, its job as it runs, and the client it sends through. */
export interface RunContext {
  readonly options: RunJobOptions;
  readonly db: Db;
  readonly log: Logger;
  /** The job with the command line's overrides applied, validated like the file. */
  readonly job: Job;
  readonly loaded: LoadedJob;
  readonly run: OpenedRun;
  /** This process continues a run that had been interrupted. */
  readonly resumed: boolean;
  /** `--full`: incremental state ignored. */
  readonly full: boolean;
  /** Every credential of the configuration: redacted from whatever the run stores or prints. */
  readonly secrets: readonly string[];
  readonly jobClient: JobClient;
  /** The requests the plan expects (the progress bar's estimate). */
  readonly planned: number;
  readonly requestBudget: number;
  /** The deployment's zone, zone-less times of the answers are read in (recorded in efa.runs.time_zone). */
  readonly timeZone: DeploymentTimeZone;
}

/**
 * How a run ended, as its kind reads it from the ledger inside the transaction that ends it. The
 * lifecycle writes it into efa.runs (lists cut to their first 50) and into the summary (whole).
 */
export interface Ending {
  readonly status: EndStatus;
  readonly error?: string | undefined;
  readonly relations: RelationCounts;
  readonly messages: readonly ServerMessage[];
  readonly units: UnitCounts;
  readonly rejects: number;
  readonly failures: readonly { operation: string; unit: string; error: string }[];
  readonly capped: readonly { operation: string; unit: string; hits: number }[];
  readonly incomplete: readonly { operation: string; unit: string; reason: string }[];
  readonly heldDeletions: readonly HeldDeletion[];
  /** The record's fields only one kind has. */
  readonly meta?: Pick<RunMeta, 'vehiclesNotStored'> & { readonly snapshots?: SnapshotMeta[] };
}

/** What a kind's work left for the lifecycle to end the run with. */
export interface Outcome {
  /** Why the work stopped short, if it did: the run is failed with it (or left to resume: lifecycle.ts). */
  readonly failure: unknown;
  /** Before the transaction that ends the run: what the work left said in the log, statistics refreshed. */
  prepare?(): Promise<void>;
  /** In the transaction that ends the run, before its record is written: what commits with it (deletions, a snapshot's rows). */
  settle(tx: Tx): Promise<Ending>;
  /** After that commit, before the run's end is stamped: upkeep (pruning, the analyst views, retention). */
  tidy(): Promise<void>;
  /** The kind's own part of the summary, once the run is stamped. */
  report(): Promise<Pick<RunSummary, 'coord' | 'snapshots' | 'phases'>>;
}

export interface RunKind {
  /** Whether an interrupted run of this kind is continued by the next run (a snapshot is a moment: it is not). */
  readonly resumable: boolean;
  /** Does the kind's work; a failure that should end the run as failed is returned in the outcome, not thrown. */
  execute(ctx: RunContext): Promise<Outcome>;
}
