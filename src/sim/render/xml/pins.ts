import type { CoordResult, PinOut } from '../../ops/coord.js';
import { STOP_GLOBAL_ID, wireStopIds } from '../stop-ids.js';
import { el, genAttrList, itdRequest, type XmlNode } from './common.js';

/**
 * CoordInfo as the STA and VRR answers: `coordInfoItem` with type/id/name attributes, the position
 * in `itdPathCoordinates` (decimal degrees, as the echo's mapName says), the ids and MOT list in
 * `genAttrList`. Scalars of a pin's extra fields go to genAttrList; structures are not written (an
 * XML answer has no place for them that is known).
 */
function item(out: PinOut): XmlNode {
  const { pin: p } = out;
  const stop = p.type === 'STOP' && p.id !== undefined ? wireStopIds({ id: p.id, globalId: p.globalId }) : undefined;
  const id = stop?.local ?? p.id ?? '';
  const mots = out.motTypes ?? [];
  const pairs: [string, string][] = stop
    ? [[STOP_GLOBAL_ID, stop.global ?? stop.id], ['STOP_NAME_WITH_PLACE', p.name], ...(mots[0] === undefined ? [] : [['STOP_MAJOR_MEANS', String(mots[0])] as [string, string]]), ['STOP_MEANS_LIST', mots.join(',')]]
    : [];
  for (const [key, value] of Object.entries(out.extra)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) pairs.push([key, value === null ? '' : String(value)]);
  }
  return el('coordInfoItem', { type: p.type, id, name: p.name, gisLayer: `SYS-${p.type.replace('_', '-')}`, distance: Math.round(out.distanceM), stateless: id }, [
    el('itdPathCoordinates', {}, [
      el('coordEllipsoid', {}, [], 'WGS84'),
      el('coordType', {}, [], 'GEO_DECIMAL'),
      el('itdCoordinateBaseElemList', {}, [el('itdCoordinateBaseElem', {}, [el('x', {}, [], String(p.lon)), el('y', {}, [], String(p.lat))])]),
    ]),
    genAttrList(pairs),
  ]);
}

export function renderPins(r: CoordResult): XmlNode {
  return itdRequest(
    el('itdCoordInfoRequest', { requestID: '0' }, [
      el('itdCoordInfo', {}, [
        el('coordInfoRequest', { max: '-1' }, [el('itdCoord', { x: '0', y: '0', mapName: 'WGS84[DD.ddddd]' })]),
        el('coordInfoItemList', {}, r.pins.map(item)),
      ]),
    ]),
  );
}
