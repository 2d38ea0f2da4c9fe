import type { EfaResult, Pin } from '../../efa/index.js';
import { readSharingStations } from '../../efa/parse/stations.js';
import type { KeptOutcome } from '../index.js';
import { toStationRow, type StationRow } from '../../relations/index.js';
import { inRegion, ownsPoint, type BBox, type Region, type Tile } from '../../tiling/index.js';

/**
 * The sharing stations of the nightly CoordInfo sweep (efa.sharing_stations). They come with the
 * objects each tile's answer already holds, so they cost no request.
 */

/**
 * The answer with its unreadable stations among its rejects, before it is judged: a station that
 * could not be read is a record the tile lost, so the tile is incomplete and deletes nothing there,
 * pins or stations (the contract's "nothing rejected"), and the reject is stored with the tile.
 */
export function withStationRejects(result: EfaResult<Pin>): EfaResult<Pin> {
  const { rejects } = readSharingStations(result.records);
  return rejects.length === 0 ? result : { ...result, rejects: [...result.rejects, ...rejects] };
}

/**
 * The rows of the stations a kept tile owns: read from every object inside its box (a vehicle
 * standing at a station may lie in the neighbour's half of an edge), each owned by the tile that
 * owns the station's own place, as the deletion predicate judges it (efa.gone_sharing_stations).
 */
export function ownedStationRows(tile: Tile, outcome: KeptOutcome, place: { readonly region: Region; readonly regionBBox: BBox }): StationRow[] {
  // A branch that answers whatever the box owns nothing (harvest/outcome.ts): no station either.
  if (outcome.unsplit === 'not-spatial') return [];
  return readSharingStations(outcome.inside)
    .records.filter((s) => ownsPoint(tile, s.coord, place.regionBBox) && inRegion(place.region, s.coord))
    .map(toStationRow);
}
