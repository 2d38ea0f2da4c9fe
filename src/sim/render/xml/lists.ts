import type { AddInfoResult } from '../../ops/addinfo.js';
import type { OpAreaResult } from '../../ops/oparea.js';
import type { ServingLinesResult } from '../../ops/serving-lines.js';
import type { LocationOut, StopFinderResult } from '../../ops/stopfinder.js';
import { wireStopIds } from '../stop-ids.js';
import { el, itdDateTime, itdRequest, type XmlNode } from './common.js';

const MAP_NAME = 'WGS84[DD.ddddd]';

function nameElem(l: LocationOut, index: number): XmlNode {
  const ids = wireStopIds(l.stop);
  const comma = l.stop.name.indexOf(', ');
  return el(
    'odvNameElem',
    {
      listIndex: index, selected: l.isBest ? '1' : '0', matchQuality: l.matchQuality, x: l.stop.lon, y: l.stop.lat, mapName: MAP_NAME,
      id: ids.local, anyType: 'stop', locality: comma < 0 ? '' : l.stop.name.slice(0, comma),
      objectName: comma < 0 ? l.stop.name : l.stop.name.slice(comma + 2), stateless: ids.local, gid: ids.global ?? ids.id,
    },
    [],
    l.stop.name,
  );
}

/** StopFinder as the MVV and VRR list answers: `itdOdvName state="list"` with the -8011 note, else identified or notidentified. */
export function renderStopFinder(r: StopFinderResult): XmlNode {
  const state = r.locations.length > 1 ? 'list' : r.locations.length === 1 ? 'identified' : 'notidentified';
  return itdRequest(
    el('itdStopFinderRequest', { requestID: '0' }, [
      el('itdOdv', { type: 'any', usage: 'sf' }, [
        el('itdOdvPlace', { state: 'empty' }, [el('odvPlaceElem')]),
        el('itdOdvName', { state }, [
          ...(state === 'list' ? [el('itdMessage', { type: 'error', module: 'BROKER', code: '-8011' })] : []),
          ...(r.locations.length === 0 ? [el('odvNameElem')] : r.locations.map(nameElem)),
        ]),
      ]),
    ]),
  );
}

/** ServingLines: the `itdServingLines` block of the VGN and VRR departure answers, under itdServingLinesRequest (inferred). */
export function renderServingLines(r: ServingLinesResult): XmlNode {
  return itdRequest(
    el('itdServingLinesRequest', { requestID: '0' }, [
      el('itdServingLines', {}, r.lines.map((l, i) =>
        el('itdServingLine', { number: l.number, motType: l.mot, direction: l.direction, stateless: l.id, name: l.name, index: `${l.mot}:${i}` }, [
          el('motDivaParams', { line: l.diva, project: l.project, direction: l.dirCode, supplement: l.supplement, network: l.network }),
          el('itdOperator', {}, [el('name', {}, [], l.operator)]),
        ]),
      )),
    ]),
  );
}

function concernedLine(key: string): XmlNode {
  const [network = '', line = '', supplement = '', direction = '', project] = key.split(':');
  return el('line', { line, supplement, direction, network, project });
}

/** AddInfo as the STA answer: `itdAdditionalTravelInformation` with validityPeriod, infoLink/infoText, concernedLines. */
export function renderAddInfo(r: AddInfoResult): XmlNode {
  return itdRequest(
    el('itdAddInfoRequest', { requestID: '0' }, [
      el('itdAdditionalTravelInformations', {}, [
        el('status', {}, [], 'current'),
        ...r.infos.map((n) =>
          el('itdAdditionalTravelInformation', { type: n.type, providerCode: n.providerCode, infoID: n.id, seqID: '1', priority: n.severity, publish: '1' }, [
            el('sourceSystem', {}, [el('systemName', {}, [], n.sourceSystem)]),
            el('creationTime', {}, [itdDateTime(n.publishedAt, 0, 0)]),
            el('validityPeriod', {}, [itdDateTime(n.validFrom, 0, 0), itdDateTime(n.validTo, 23, 59)]),
            el('infoLink', { language: 'de' }, [
              el('infoLinkText', {}, [], n.title),
              el('infoText', {}, [el('content', {}, [], n.text), el('subtitle', {}, [], n.title)]),
            ]),
            el('concernedLines', {}, n.lines.map(concernedLine)),
            el('concernedStops', {}, n.stops.map((id) => {
              const ids = wireStopIds({ id, globalId: r.stopGlobalIds.get(id) });
              return el('stop', { id: ids.local, gid: ids.global ?? ids.id });
            })),
          ]),
        ),
      ]),
    ]),
  );
}

/** OpArea: no real body in any format; efa-api.md's providers/areas written as elements, polygons as "lat,lon" text. */
export function renderOpArea(r: OpAreaResult): XmlNode {
  return itdRequest(
    el('itdOpAreaRequest', { requestID: '0' }, [
      el('providers', {}, r.providers.map((p) =>
        el('provider', { id: p.id, name: p.name, vehicleType: p.vehicleType }, [
          el('areas', {}, p.areas.map((a) =>
            el('area', { id: a.id, name: a.name }, r.withGeometry ? [el('polygon', {}, [], a.polygon.map(([la, lo]) => `${la},${lo}`).join(' '))] : []),
          )),
        ]),
      )),
    ]),
  );
}
