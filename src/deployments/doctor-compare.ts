import pointOnFeature from '@turf/point-on-feature';
import { dialectChecks } from '../cli/doctor-dialects.js';
import type { Operation } from '../efa/operations.js';
import { describeError } from '../http/index.js';
import type { JobInput } from '../job/schema.js';
import { validateJob } from '../job/load.js';
import { probeUpstream } from '../run/probe.js';
import { deploymentJobKeys } from './job-keys.js';
import { boxAround, type InitRegion } from './init-job.js';
import { findDeployment } from './load.js';
import type { Deployment } from './schema.js';

/** One line of doctor's report (DoctorCheck in cli/doctor.ts, which calls this module). */
export interface CatalogueCheck {
  readonly name: string;
  readonly status: 'ok' | 'warn' | 'fail' | 'skip';
  readonly message: string;
  readonly hint?: string;
}

/** The cheapest sweep that makes the probe ask each operation the catalogue lists. */
function sweepsFor(entry: Deployment): JobInput['sweeps'] {
  const has = (op: Operation): boolean => entry.operations[op] !== undefined;
  return {
    ...(has('coordInfo') ? { coord: { types: ['STOP'], maxPerRequest: 10 } } : {}),
    ...(has('stopFinder') ? { stopFinder: { names: [entry.name] } } : {}),
    ...(has('servingLines') ? { servingLines: { lineNames: ['1'] } } : {}),
    ...(has('addInfo') ? { addInfo: {} } : {}),
    ...(has('opArea') ? { opArea: { mode: 'ALL' } } : {}),
  };
}

/**
 * What the server answers, beside what the catalogue says of it: each operation the entry lists (off,
 * moved, another dialect), and the formats it answers against the entry's dialect. A difference the
 * operator must act on is `fail` (doctor exits 1, as for any failed check); a better dialect is `warn`.
 */
export async function catalogueChecks(id: string, baseUrl: string | undefined): Promise<CatalogueCheck[]> {
  let entry: Deployment;
  try {
    entry = findDeployment(id);
  } catch (e) {
    return [{ name: 'catalogue', status: 'fail', message: describeError(e) }];
  }
  const [lon, lat] = pointOnFeature(entry.coverage).geometry.coordinates as [number, number];
  const region: InitRegion = { bbox: boxAround([lon, lat], 0.5) };
  const job = validateJob({ name: entry.id, ...deploymentJobKeys(entry), region, sweeps: sweepsFor(entry) }, `catalogue ${entry.id}`);
  const loaded = { job, region, file: `deployments/${entry.id}.json`, hash: '' };
  const asked = baseUrl !== undefined && baseUrl !== '' ? baseUrl : entry.baseUrl;
  const where = asked === entry.baseUrl ? entry.baseUrl : `${asked} (standing in for ${entry.baseUrl})`;
  const probe = await probeUpstream(loaded, { baseUrl: asked });
  const checks: CatalogueCheck[] = probe.checks
    .filter((c) => c.outcome !== 'skipped')
    .map((c) =>
      c.outcome === 'ok'
        ? { name: `catalogue ${c.operation}`, status: 'ok', message: `answers in ${entry.dialect}, as ${entry.id} says` }
        : c.outcome === 'wrong-dialect'
          ? { name: `catalogue ${c.operation}`, status: 'fail', message: `${entry.id} says ${entry.dialect}; the server answers ${c.answeredIn ?? 'another dialect'}`, hint: `set "dialect" in the job, or correct deployments/${entry.id}.json` }
          : { name: `catalogue ${c.operation}`, status: 'fail', message: `${entry.id} says it answers; ${c.message}`, ...(c.hint ? { hint: c.hint } : {}) },
    );
  const moved = probe.checks.length > 0 && probe.checks.every((c) => c.outcome === 'not-found');
  if (moved || probe.unavailable.length > 0) {
    const others = [...new Set(entry.endpoints.map((e) => e.url))].filter((u) => u !== entry.baseUrl);
    checks.unshift({
      name: 'catalogue endpoint', status: 'fail',
      message: moved ? `${where} answers none of ${entry.id}'s operations (404): the endpoint has moved` : `${where} cannot be reached now: down, or moved`,
      hint: others.length > 0 ? `other endpoints its sources name: ${others.join(', ')}` : `correct deployments/${entry.id}.json once the new endpoint is known`,
    });
    return checks;
  }
  const dialects = await dialectChecks(loaded, asked);
  const agrees = dialects.message.includes(`"dialect": "${entry.dialect}"`);
  checks.push(
    dialects.status === 'ok' && !agrees
      ? { name: 'catalogue dialect', status: 'warn', message: `${entry.id} says "${entry.dialect}"; ${dialects.message}`, hint: `correct deployments/${entry.id}.json if the server changed` }
      : { ...dialects, name: 'catalogue dialect' },
  );
  return checks;
}
