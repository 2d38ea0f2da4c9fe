import { cString, reportError } from '../db/pglite-errors.js';

/**
 * Settings a served client cannot change, by PostgreSQL's own rules rather than by the statement
 * check: each pinned setting gets a check hook (the mechanism PostgreSQL gives every setting to
 * refuse a value) that refuses the value for any user but the superuser. SET, SET LOCAL, RESET,
 * set_config(), BEGIN/SET TRANSACTION READ WRITE, SET SESSION CHARACTERISTICS and function SET
 * clauses all pass through it, so the check holds with the statement check off.
 *
 * - Read-only (default_transaction_read_only, transaction_read_only), unless serve runs with --write:
 *   only on. PostgreSQL then refuses in every client transaction what the reader role could
 *   otherwise do to itself: ALTER ROLE … SET / PASSWORD, ALTER DEFAULT PRIVILEGES, and any write.
 *   The reset value is made on too (RESET, SET … TO DEFAULT, RESET ALL and DISCARD ALL give on).
 * - standard_conforming_strings: only on, the way the statement check parses text.
 * - Timers that fire inside PGlite between statements and stop the one engine every client shares
 *   (idle_session_timeout, idle_in_transaction_session_timeout, transaction_timeout,
 *   client_connection_check_interval): only 0. Serve bounds idle clients itself.
 *
 * The hooks are JavaScript functions put into PGlite's WebAssembly function table (PGlite exports
 * addFunction), written into the settings' records found with PostgreSQL's find_option. The record
 * layout is PostgreSQL 18's on 32-bit WebAssembly and is checked before anything is written: a
 * PGlite whose layout differs refuses to serve rather than serve unpinned.
 */

/** What of PGlite's Emscripten module this uses (exported by PGlite 0.5's build). */
export interface GucModule {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _find_option(name: number, createPlaceholders: number, skipErrors: number, elevel: number): number;
  _SetConfigOption(name: number, value: number, context: number, source: number): void;
  _superuser(): number;
  _errstart(elevel: number, domain: number): number;
  _errcode(sqlstate: number): number;
  _errmsg_internal(fmt: number, args: number): number;
  _errfinish(file: number, line: number, func: number): void;
  addFunction(fn: (...args: number[]) => number, signature: string): number;
  UTF8ToString(ptr: number): string;
}

// PostgreSQL 18 (guc.h, guc_tables.h): enum values and struct offsets on wasm32.
const PGC_USERSET = 6;
const PGC_SUSET = 5;
const PGC_S_OVERRIDE = 10;
const PGC_BOOL = 0;
const PGC_INT = 1;
const NAME = 0;
const CONTEXT = 4;
const VARTYPE = 24;
/** sizeof(struct config_generic): config_bool and config_int continue after it. */
const GENERIC = 92;
const BOOL_CHECK_HOOK = GENERIC + 8;
const BOOL_RESET_VAL = GENERIC + 20;
const INT_VARIABLE = GENERIC;
const INT_MIN = GENERIC + 8;
const INT_MAX = GENERIC + 12;
const INT_CHECK_HOOK = GENERIC + 16;

const READ_ONLY = ['default_transaction_read_only', 'transaction_read_only'] as const;
const TEXT_READING = ['standard_conforming_strings'] as const;
export const ENGINE_TIMERS = ['idle_session_timeout', 'idle_in_transaction_session_timeout', 'transaction_timeout', 'client_connection_check_interval'] as const;

interface Pin {
  readonly record: number;
  readonly offset: number;
  readonly original: number;
  readonly hook: number;
}

const view = (mod: GucModule): DataView => new DataView(mod.HEAPU8.buffer);


/** The setting's record, checked to be what the offsets above assume; undefined when PostgreSQL has no such setting. */
function recordOf(mod: GucModule, name: string, vartype: number): number | undefined {
  const record = mod._find_option(cString(mod, name), 0, 1, 0);
  if (record === 0) return undefined;
  const v = view(mod);
  const ok =
    mod.UTF8ToString(v.getUint32(record + NAME, true)) === name &&
    v.getInt32(record + CONTEXT, true) === PGC_USERSET &&
    v.getInt32(record + VARTYPE, true) === vartype &&
    (vartype !== PGC_INT || (v.getInt32(record + INT_MIN, true) >= 0 && v.getInt32(record + INT_MAX, true) === 2147483647));
  if (!ok) throw new Error(`efa-sync serve: PostgreSQL's record of ${name} is not laid out as serve expects (another PGlite build?): refusing to serve unpinned`);
  return record;
}

/** The pinned settings of one PGlite, installed while a client holds the session and lifted for the superuser's own work. */
export class PinnedSettings {
  private readonly pins: Pin[] = [];

  constructor(
    private readonly mod: GucModule,
    readOnly: boolean,
  ) {
    const refuse = (message: number): void => reportError(mod, '42501', message);
    const boolPin = (name: string, why: string): void => {
      const record = recordOf(mod, name, PGC_BOOL);
      if (record === undefined) throw new Error(`efa-sync serve: PostgreSQL has no setting ${name}`);
      const message = cString(mod, `efa-sync serve: ${name} can only be on: ${why}`.replaceAll('%', '%%'));
      // bool check_hook(bool *newval, void **extra, GucSource source)
      const hook = mod.addFunction((newval: number) => {
        if (mod.HEAPU8[newval] === 0 && mod._superuser() === 0) refuse(message);
        return 1;
      }, 'iiii');
      this.pins.push({ record, offset: BOOL_CHECK_HOOK, original: view(mod).getUint32(record + BOOL_CHECK_HOOK, true), hook });
    };
    if (readOnly) for (const name of READ_ONLY) boolPin(name, 'the database is served read-only (serve --write allows changing rows)');
    for (const name of TEXT_READING) boolPin(name, 'serve reads every statement as the server does, with its defaults');
    for (const name of ENGINE_TIMERS) {
      const record = recordOf(mod, name, PGC_INT);
      if (record === undefined) continue; // transaction_timeout is PostgreSQL 17's: nothing to pin before it.
      const message = cString(mod, `efa-sync serve: ${name} can only be 0: its timer would fire inside the engine every client shares (serve bounds idle clients itself)`);
      const hook = mod.addFunction((newval: number) => {
        if (view(mod).getInt32(newval, true) !== 0 && mod._superuser() === 0) refuse(message);
        return 1;
      }, 'iiii');
      this.pins.push({ record, offset: INT_CHECK_HOOK, original: view(mod).getUint32(record + INT_CHECK_HOOK, true), hook });
    }
    if (readOnly) this.resetReadOnlyOn();
  }

  /**
   * Makes on the value RESET gives (as a `-c` at start would): PGC_S_OVERRIDE sets the reset value
   * (guc.c's makeDefault), whatever was SET in the session.
   */
  private resetReadOnlyOn(): void {
    const name = READ_ONLY[0];
    this.mod._SetConfigOption(cString(this.mod, name), cString(this.mod, 'on'), PGC_SUSET, PGC_S_OVERRIDE);
    const record = recordOf(this.mod, name, PGC_BOOL) ?? 0;
    if (this.mod.HEAPU8[record + BOOL_RESET_VAL] !== 1) throw new Error(`efa-sync serve: could not make on the reset value of ${name}`);
  }

  /**
   * The session's statement_timeout in milliseconds (0: none), read from the setting's variable.
   * PGlite arms and disarms the timer within one synchronous call, so it never fires: serve's
   * watchdog is what can honour a client's value (a cheap read after each client message).
   */
  statementTimeoutMs(): number {
    const record = this.statementTimeout ?? recordOf(this.mod, 'statement_timeout', PGC_INT) ?? 0;
    this.statementTimeout = record;
    const variable = view(this.mod).getUint32(record + INT_VARIABLE, true);
    return view(this.mod).getInt32(variable, true);
  }
  private statementTimeout: number | undefined;

  /** Pins: while a client holds the session. */
  install(): void {
    for (const pin of this.pins) view(this.mod).setUint32(pin.record + pin.offset, pin.hook, true);
  }

  /** PostgreSQL's own hooks back, for the superuser's work between clients. */
  lift(): void {
    for (const pin of this.pins) view(this.mod).setUint32(pin.record + pin.offset, pin.original, true);
  }
}
