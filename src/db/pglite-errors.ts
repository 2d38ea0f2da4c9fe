import type { Extension, PGliteInterface } from '@electric-sql/pglite';

/*
 * Why a PostGIS error can vanish in PGlite, and the mend.
 *
 * GEOS and PROJ are C++ and report failures by throwing C++ exceptions (a TopologyException for a
 * self-intersecting polygon in ST_Union, a ParsingException for a proj string ST_Transform cannot
 * read), which their C APIs catch and PostGIS turns into ereport(ERROR). PGlite's build compiles
 * them without exception catching (Emscripten's default): the `throw` leaves every C and C++ frame as
 * a JavaScript exception carrying the exception object's address (a plain number), and reaches
 * PGlite's loop around PostgresMainLoopOnce. That loop recovers only from PostgreSQL's own
 * longjmp-style errors; a number it ignores. PostgreSQL's error recovery never runs: no
 * ErrorResponse, no CommandComplete, the statement's output dropped, `db.query` and `db.exec`
 * resolve with no rows and no error, the transaction goes on as if the statement had succeeded, and
 * `error_context_stack` is left pointing into frames that no longer exist.
 *
 * The mend wraps the one entry point every caller's statements run through (PGlite's
 * `Module._PostgresMainLoopOnce`: `query`, `exec`, transactions and serve's raw protocol alike):
 * when a C++ exception escapes, the WebAssembly stack pointer and the error context stack are put
 * back as they were before the call, and the exception is raised as a PostgreSQL ERROR through
 * PostgreSQL's own exported errstart/errcode/errmsg/errfinish, with the exception's message and
 * SQLSTATE XX000 (what PostGIS raises for a GEOS error on a server). errfinish then unwinds the way
 * any ERROR does, and PGlite's loop runs PostgreSQL's recovery: the client gets its ErrorResponse,
 * the transaction is aborted, the session is usable.
 *
 * Inside a PL/pgSQL function the exception never reaches the loop: plpgsql's setjmp frames (built
 * with Emscripten's JavaScript setjmp/longjmp) take it for a normal return, and the function goes on
 * with a value that was never computed (measured: an EXCEPTION block then returned as if nothing
 * failed; without one, "control reached end of function without RETURN"). Emscripten counts every
 * throw that no catch took (`__cxa_uncaught_exceptions`), and nothing in this build catches one: when
 * the count rose during a message that otherwise ended well, the wrapper raises the ERROR after it.
 * Inside a transaction block (every write of efa-sync's runs) that aborts the transaction before its
 * COMMIT; a statement outside one (or a simple-query message carrying its own COMMIT) has already
 * committed, but its caller still gets the error.
 */

/** What of PGlite's Emscripten module the mend uses (all exported by PGlite 0.5's build). */
interface PostgresModule {
  HEAPU8: Uint8Array;
  ___stack_pointer: { value: number };
  _error_context_stack: number;
  _PostgresMainLoopOnce: () => void;
  ___cxa_uncaught_exceptions(): number;
  _malloc(size: number): number;
  _errstart(elevel: number, domain: number): number;
  _errcode(sqlstate: number): number;
  _errmsg_internal(fmt: number, args: number): number;
  _errfinish(file: number, line: number, func: number): void;
  UTF8ToString(ptr: number, max?: number): string;
}

/** PostgreSQL's elevel ERROR (elog.h, PostgreSQL 14 and later). */
const ERROR = 21;
/** Longest message read out of an exception object. */
const MAX_MESSAGE = 1000;

/** PostgreSQL's MAKE_SQLSTATE: five characters packed six bits each. */
export function packSqlState(code: string): number {
  return [...code].reduce((packed, ch, i) => packed + (((ch.charCodeAt(0) - 48) & 0x3f) << (6 * i)), 0);
}

const u32 = (mod: PostgresModule, address: number): number => new DataView(mod.HEAPU8.buffer).getUint32(address, true);

/** A NUL-terminated copy of `text` in PostgreSQL's heap (freed by the caller, or left to the error's memory). */
export function cString(mod: Pick<PostgresModule, 'HEAPU8' | '_malloc'>, text: string): number {
  const bytes = Buffer.from(`${text}\0`, 'utf8');
  const ptr = mod._malloc(bytes.length);
  mod.HEAPU8.set(bytes, ptr);
  return ptr;
}

/**
 * The exception's text. GEOS's and PROJ's exceptions derive from std::runtime_error or hold one
 * std::string after the vtable; in both the first word after it points at the message in this
 * build (checked on TopologyException and proj's ParsingException). Anything that does not read as
 * printable text gives the C++ type's name instead.
 */
function exceptionMessage(mod: PostgresModule, thrown: number): string {
  const heap = mod.HEAPU8.length;
  const valid = (ptr: number): boolean => ptr > 0 && ptr < heap;
  // Emscripten keeps its exception header (type at +4) 24 bytes before the thrown object.
  const type = thrown >= 24 ? u32(mod, thrown - 20) : 0;
  const typeName = valid(type) && valid(u32(mod, type + 4)) ? mod.UTF8ToString(u32(mod, type + 4), 200) : 'unknown';
  const text = valid(thrown + 4) && valid(u32(mod, thrown + 4)) ? mod.UTF8ToString(u32(mod, thrown + 4), MAX_MESSAGE) : '';
  const library = typeName.startsWith('N4geos') ? 'GEOS' : typeName.includes('osgeo4proj') ? 'PROJ' : 'C++';
  if (/^[\x20-\x7e\u00a0-\uffff]{3,}$/.test(text) && !text.includes('\ufffd')) return `${library}: ${text}`;
  return `${library} raised ${typeName.replace(/[^\w:]/g, '')} (the input geometry or projection is probably invalid)`;
}

/** What of PostgreSQL's error reporting a JavaScript function called from inside the engine uses. */
export type ErrorReporting = Pick<PostgresModule, '_errstart' | '_errcode' | '_errmsg_internal' | '_errfinish'>;

/**
 * Reports an ERROR with `sqlstate` through PostgreSQL's own errstart/errcode/errmsg/errfinish:
 * errfinish unwinds like any ERROR and does not return. `format` is a C string in PostgreSQL's heap
 * (cString), read as an argument-free format: a `%` in it must be doubled.
 */
export function reportError(mod: ErrorReporting, sqlstate: string, format: number): void {
  mod._errstart(ERROR, 0);
  mod._errcode(packSqlState(sqlstate));
  mod._errmsg_internal(format, 0);
  mod._errfinish(0, 0, 0);
}

/** Raises `message` as a PostgreSQL ERROR (XX000): errfinish unwinds like any ERROR and does not return. */
function raiseError(mod: PostgresModule, message: string): never {
  reportError(mod, 'XX000', cString(mod, message.replaceAll('%', '%%')));
  // Should it return, the statement still must not pass as a success.
  throw new Error(`the embedded database lost an error: ${message}`);
}

/** Installs the mend on an open PGlite (idempotent). */
export function raiseEscapedExceptions(pg: PGliteInterface): void {
  const mod = (pg as unknown as { mod: PostgresModule & { efaEscapedExceptions?: true } }).mod;
  if (mod.efaEscapedExceptions === true) return;
  const loopOnce = mod._PostgresMainLoopOnce.bind(mod);
  mod._PostgresMainLoopOnce = () => {
    const stackPointer = mod.___stack_pointer.value;
    const contextStack = u32(mod, mod._error_context_stack);
    const uncaught = mod.___cxa_uncaught_exceptions();
    try {
      loopOnce();
    } catch (e) {
      // PostgreSQL's own errors and Emscripten's unwinding are not numbers; a C++ exception is its object's address.
      if (typeof e !== 'number' || !Number.isFinite(e)) throw e;
      mod.___stack_pointer.value = stackPointer;
      new DataView(mod.HEAPU8.buffer).setUint32(mod._error_context_stack, contextStack, true);
      const message = exceptionMessage(mod, e);
      // The exception object (a few hundred bytes) is left allocated: libc++abi's refcount calls abort() on
      // an exception that was never caught, and a leak per failed statement is the lesser harm.
      raiseError(mod, message);
    }
    if (mod.___cxa_uncaught_exceptions() > uncaught) {
      raiseError(mod, 'GEOS or PROJ failed inside a PL/pgSQL function, where the embedded database cannot report the error: the statement did not complete (the input geometry or projection is probably invalid)');
    }
  };
  mod.efaEscapedExceptions = true;
}

/** The mend as a PGlite extension, so every PGlite efa-sync creates (pglite-engine.ts) has it from its first statement on. */
export const escapedExceptionsAsErrors: Extension = {
  name: 'efa-escaped-exceptions',
  setup: async (pg) => ({ init: async () => raiseEscapedExceptions(pg) }),
};
