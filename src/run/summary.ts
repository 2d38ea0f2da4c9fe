import type { RunStatus } from '../db/runs.js';
import type { RelationCounts, RelationStats, RunMeta, SnapshotMeta, UnitStats } from '../db/run-record.js';
import type { ServerMessage } from '../efa/index.js';
import { ExitCode, exitCodeOf } from '../errors.js';
import type { RateHistory } from './client.js';
import type { OutageStats } from '../http/index.js';

/** A run's status once it ended by itself (a signal's `stopped` is not an end: the run resumes). */
export type EndStatus = Exclude<RunStatus, 'running' | 'stopped'>;

/** Units of work per operation and outcome, as efa.run_tiles holds them. */
export type UnitCounts = Readonly<Record<string, UnitStats>>;

/**
 * The shape of 0.1's `--json` stats, kept for its readers: each relation's counts under its name,
 * beside `_units` (UnitCounts) and `_rejects` (a number).
 */
export type SummaryStats = { readonly [relation: string]: RelationStats | UnitCounts | number } & {
  readonly _units: UnitCounts;
  readonly _rejects: number;
};

/** What `efa-sync run --json` prints and `runJob` returns: one run, whatever its kind, read from the ledger. */
export interface RunSummary {
  readonly runId: string;
  readonly job: string;
  /** The deployment the job harvests: every row the run wrote belongs to it. */
  readonly source: string;
  /** The response dialect the run read (for `auto`, the one detected). */
  readonly dialect: string;
  /** How the run ended; `stopped` when SIGTERM/SIGINT ended the process (exit 143/130; the next run resumes it). */
  readonly status: EndStatus | 'stopped';
  readonly exitCode: number;
  /** This run continued one that had been interrupted. */
  readonly resumed: boolean;
  readonly durationS: number;
  /** Of durationS, the seconds after the last request: deletions, counts, the run record, the views. */
  readonly finaliseS?: number;
  readonly requests: number;
  readonly requestsByOperation: Readonly<Record<string, number>>;
  readonly retries: number;
  /** How the adaptive rate moved (the detail is at debug level: this is its summary). */
  readonly rate?: RateHistory;
  /**
   * When the upstream stopped answering mid-run: how often, the seconds waited for it, and the probe
   * requests sent meanwhile (also requestsByOperation.outageProbe). Absent when it never did.
   */
  readonly outage?: OutageStats;
  /** Rows inserted/updated/deleted/unchanged per relation. */
  readonly relations: RelationCounts;
  /** As `relations`, plus `_units` and `_rejects` (the shape of 0.1's --json, kept for its readers). */
  readonly stats: SummaryStats;
  readonly units: RunMeta['units'];
  readonly rejects: number;
  readonly coord?: { readonly requests: number; readonly pins: number; readonly floor: number; readonly ratio: number };
  readonly failures: readonly { operation: string; unit: string; error: string }[];
  readonly capped: readonly { operation: string; unit: string; hits: number }[];
  /** Deletions the mass-deletion guard held (the run is partial). */
  readonly heldDeletions: RunMeta['heldDeletions'];
  readonly messages: readonly ServerMessage[];
  readonly db: string;
  readonly error?: string;
  /** Snapshot jobs: what each snapshot took (rows, requests against the floor, gaps). */
  readonly snapshots?: readonly SnapshotMeta[];
  /**
   * Where a sweep run's time went before `finaliseS`, in seconds: `sweepS` from the run's start to its
   * last unit (requests, with the load overlapped), `loadS` the writer's time in its transactions within it.
   */
  readonly phases?: { readonly sweepS: number; readonly loadS: number };
}

const statusExit = { succeeded: ExitCode.succeeded, partial: ExitCode.partial, failed: ExitCode.failed } as const;

/**
 * The exit code of a run that ended (contract section 2): its status's, except a run that a
 * configuration error ended (the deployment answers in a projected grid, say), which is exit 2.
 */
export function runExitCode(status: EndStatus, failure: unknown): ExitCode {
  const own = failure === undefined ? undefined : exitCodeOf(failure);
  // A configuration error stays exit 2; an upstream down past its bound (a snapshot's) is exit 75, try again later.
  return own === ExitCode.usage || own === ExitCode.temporaryFailure ? own : statusExit[status];
}

/** A run as far as a stop signal let it get: what `--json` prints for it (no rows: nothing was finalised). */
export function stoppedRunSummary(o: {
  readonly runId: string;
  readonly job: string;
  readonly source: string;
  readonly dialect: string;
  readonly exitCode: number;
  readonly resumed: boolean;
  readonly durationS: number;
  readonly requests: number;
  readonly requestsByOperation: Readonly<Record<string, number>>;
  readonly retries: number;
  readonly db: string;
  readonly error: string;
}): RunSummary {
  return {
    ...o,
    status: 'stopped',
    relations: {},
    stats: { _units: {}, _rejects: 0 },
    units: {},
    rejects: 0,
    failures: [],
    capped: [],
    heldDeletions: [],
    messages: [],
  };
}

/** Milliseconds as seconds with one decimal: every duration of a run is rounded so. */
export const seconds = (ms: number): number => Math.round(ms / 100) / 10;
