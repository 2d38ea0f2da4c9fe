import type { AddInfoResult } from '../../ops/addinfo.js';
import type { ServingLinesResult } from '../../ops/serving-lines.js';
import type { LocationOut, StopFinderResult } from '../../ops/stopfinder.js';
import { wireStopIds } from '../stop-ids.js';
import { coords, itdDateTime, pair, PARAMETERS } from './common.js';

function point(l: LocationOut): Record<string, unknown> {
  const ids = wireStopIds(l.stop);
  const local = ids.local;
  const comma = l.stop.name.indexOf(', ');
  const place = comma < 0 ? '' : l.stop.name.slice(0, comma);
  return {
    usage: 'sf', type: 'any', name: l.stop.name, stateless: local, anyType: 'stop', sort: '2',
    quality: String(l.matchQuality), best: l.isBest ? '1' : '0',
    object: comma < 0 ? l.stop.name : l.stop.name.slice(comma + 2), mainLoc: place,
    modes: l.stop.motTypes.join(','),
    ...(l.distanceM !== undefined ? { distance: String(Math.round(l.distanceM)) } : {}),
    ref: { id: local, gid: ids.global ?? ids.id, omc: '', placeID: '', place, coords: coords(l.stop.lon, l.stop.lat) },
  };
}

/**
 * StopFinder as the MVV sample: `stopFinder.points`, a list for several hits but `{ point: {...} }`
 * for exactly one (as `dm.points` of the MVV departure body), and the -8011 note real servers put
 * next to a list of candidates. No hits: `points: null` (inferred, no sample shows it).
 */
export function renderStopFinder(r: StopFinderResult): unknown {
  const points = r.locations.map(point);
  const only = points.length === 1 ? points[0] : undefined;
  return {
    parameters: PARAMETERS,
    stopFinder: {
      ...(points.length > 1 ? { message: [pair('code', '-8011'), pair('error', ''), pair('type', ''), pair('module', 'BROKER')] } : {}),
      points: only !== undefined ? { point: only } : points.length === 0 ? null : points,
    },
  };
}

/** ServingLines as the `servingLines.lines[]` block of the MVV/VRR departure bodies (inferred for this request). */
export function renderServingLines(r: ServingLinesResult): unknown {
  return {
    parameters: PARAMETERS,
    servingLines: {
      lines: r.lines.map((l, i) => ({
        mode: {
          name: l.name, number: l.number, type: String(l.mot), destination: l.direction,
          diva: {
            line: l.diva, supplement: l.supplement, dir: l.dirCode, project: l.project, network: l.network,
            stateless: l.id, operator: l.operator, attrs: [],
          },
        },
        index: `${l.mot}:${i}`,
      })),
    },
  };
}

/** `network:line:supplement:dir[:project]` → the concerned line's `diva`. */
function concernedLine(key: string): Record<string, unknown> {
  const [network = '', line = '', supplement = '', dir = '', project] = key.split(':');
  return { diva: { network, line, supplement, dir, ...(project === undefined ? {} : { project }) } };
}

/** A stop a notice names: its local id and its global id (`gid`, as StopFinder's `ref`). */
function concernedStop(id: string, globalId: string | undefined): Record<string, unknown> {
  const ids = wireStopIds({ id, globalId });
  return { id: ids.local, gid: ids.global ?? ids.id };
}

/**
 * AddInfo as `additionalInformation.travelInformations.travelInformation[]`. NO real body was
 * available: built from the description and a third-party parser of Linz AG answers.
 */
export function renderAddInfo(r: AddInfoResult): unknown {
  return {
    parameters: PARAMETERS,
    additionalInformation: {
      travelInformations: {
        travelInformation: r.infos.map((n) => ({
          infoID: n.id, seqID: '1', type: n.type, priority: n.severity, publish: '1', deactivated: 'false',
          providerCode: n.providerCode, sourceSystemName: n.sourceSystem,
          creationTime: itdDateTime(n.publishedAt, 0, 0),
          validityPeriod: [{ itdDateTime_From: itdDateTime(n.validFrom, 0, 0), itdDateTime_To: itdDateTime(n.validTo, 23, 59) }],
          infoLink: { infoLinkText: n.title, subtitle: n.title, content: n.text, infoLinkURL: '' },
          concernedLines: n.lines.map(concernedLine),
          ...(n.stops.length > 0 ? { concernedStops: n.stops.map((id) => concernedStop(id, r.stopGlobalIds.get(id))) } : {}),
        })),
      },
    },
  };
}
