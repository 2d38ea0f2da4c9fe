import type { DialectName } from '../efa/dialects/index.js';
import type { LoadedJob } from '../job/index.js';
import { probeUpstream } from '../run/probe.js';

/** One line of doctor's report (DoctorCheck in doctor.ts, which imports this file). */
interface DialectCheck {
  readonly name: 'dialects';
  readonly status: 'ok' | 'warn' | 'skip';
  readonly message: string;
  readonly hint?: string;
}

/**
 * The formats a deployment answers, asked in turn: xml (outputFormat=XML, the interface's own),
 * rapidjson, and outputFormat=JSON read as real servers write it (legacy) or as efa-api.md shows it (json). A format counts for an
 * operation when the answer came back in it and was read; a deployment that switched a format off,
 * or answers it in another one, does not count. Preferred in that order: XML is what every
 * deployment serves and cannot switch off; rapidJSON is the richer JSON where it is on.
 */
export const PROBED_DIALECTS: readonly Exclude<DialectName, 'auto'>[] = ['xml', 'rapidjson', 'legacy', 'json'];

export async function dialectChecks(loaded: LoadedJob, baseUrl: string | undefined): Promise<DialectCheck> {
  const results = await Promise.all(PROBED_DIALECTS.map(async (dialect) => ({ dialect, result: await probeUpstream(loaded, { baseUrl, dialect }).catch(() => undefined) })));
  const byOperation = new Map<string, string[]>();
  const complete: string[] = [];
  for (const { dialect, result } of results) {
    const asked = (result?.checks ?? []).filter((c) => c.outcome !== 'skipped');
    for (const c of asked) if (c.outcome === 'ok') byOperation.set(c.operation, [...(byOperation.get(c.operation) ?? []), dialect]);
    if (asked.length > 0 && asked.every((c) => c.outcome === 'ok')) complete.push(dialect);
  }
  const operations = [...new Set(results.flatMap(({ result }) => (result?.checks ?? []).filter((c) => c.outcome !== 'skipped').map((c) => c.operation)))];
  const answers = operations.map((op) => `${op}: ${(byOperation.get(op) ?? []).join(', ') || 'none'}`).join('; ');
  const recommended = complete[0];
  if (operations.length === 0) return { name: 'dialects', status: 'skip', message: 'the job sweeps no operation to ask in each format' };
  return recommended === undefined
    ? { name: 'dialects', status: 'warn', message: `${answers}; no format answers every operation`, hint: 'use "dialect": "auto", or a job per format' }
    : { name: 'dialects', status: 'ok', message: `${answers}; recommended: "dialect": "${recommended}"` };
}
