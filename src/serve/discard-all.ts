import { DISCARD_ALL_AS_READER } from './guard.js';
import { answerAsOne, cstring, message } from './protocol.js';

/**
 * DISCARD ALL as PostgreSQL answers it, from the reader role. The role may not run DISCARD ALL itself
 * (it resets the session authorization, which the lock keeps: role.ts), so the statement check sends
 * what it may run (guard.ts); with the check off (tests: privilege alone) the client's own text comes
 * here and is replaced the same way. Either way the client gets what PostgreSQL sends: one
 * CommandComplete "DISCARD ALL" (or the first error) and ReadyForQuery.
 */

/** The simple query the statement check sends for a client's DISCARD ALL. */
const AS_READER = message('Q', cstring(DISCARD_ALL_AS_READER));
/**
 * Inside a transaction block PostgreSQL's DISCARD ALL refuses itself (25001) before anything else:
 * sent as it is, the client gets that error and a failed transaction, as from PostgreSQL.
 */
const AS_WRITTEN = message('Q', cstring('DISCARD ALL'));
/** A simple query of DISCARD ALL alone, as drivers send it (Npgsql: "DISCARD ALL"). */
const DISCARD_ALL_TEXT = /^\s*discard\s+all\s*;?\s*$/i;
const QUERY = 0x51;

/** A unit of one message that is a client's DISCARD ALL, rewritten or not. */
function isDiscardAll(unit: Buffer): boolean {
  if (unit.equals(AS_READER)) return true;
  return unit[0] === QUERY && unit.length <= 64 && DISCARD_ALL_TEXT.test(unit.subarray(5, unit.length - 1).toString('latin1'));
}

/**
 * What to run for `unit` given the session's transaction status ('I', 'T', 'E'), and how to answer
 * what it returns; undefined when `unit` is not a DISCARD ALL.
 */
export function discardAll(unit: Buffer, status: string): { readonly run: Buffer; readonly answer: (ran: Buffer) => Buffer } | undefined {
  if (!isDiscardAll(unit)) return undefined;
  if (status !== 'I') return { run: AS_WRITTEN, answer: (ran) => ran };
  return { run: AS_READER, answer: (ran) => answerAsOne(ran, 'DISCARD ALL') };
}
