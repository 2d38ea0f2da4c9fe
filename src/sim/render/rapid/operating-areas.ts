/**
 * rapidJSON OpArea as the interface's published schema has it: `operatingAreas[]`, one item per
 * operating area, each naming its operator, its product and type, and its zone as a GeoJSON
 * Polygon ([lon, lat] positions) when `operatingZoneGeometry=1`.
 *
 * The schema types `id` and `operator.id` as numbers; the simulated world names its providers and
 * areas by words (`simrad`, `simrad-1`), which are sent as they are: a deployment's ids are opaque
 * to the client, and the tables of every dialect must stay comparable.
 */
import type { OpAreaResult } from '../../ops/oparea.js';
import type { VehicleKind } from '../../types.js';

/** operatingArea.product of the schema: no scooter word, so a scooter scheme is `unknown`. */
const PRODUCTS: Readonly<Record<VehicleKind, string>> = { BIKE: 'bike', CAR: 'car', MOTORCYCLE: 'motorcycle', TAXI: 'taxi', MINIVEHICLE: 'unknown' };
/** Bikes stand at stations in the simulated world's sample schemes; everything else floats free. */
const TYPES: Readonly<Record<VehicleKind, string>> = { BIKE: 'station', CAR: 'freefloating', MOTORCYCLE: 'freefloating', TAXI: 'private', MINIVEHICLE: 'freefloating' };

export function rapidOperatingAreas(r: OpAreaResult): Record<string, unknown>[] {
  return r.providers.flatMap((p) =>
    p.areas.map((a) => ({
      id: a.id,
      name: a.name,
      type: TYPES[p.vehicleType],
      product: PRODUCTS[p.vehicleType],
      operator: { id: p.id, name: p.name },
      properties: { defaultLanguage: 'de', countryCode: 'DE', timeZone: 'Europe/Berlin' },
      sharingTypes: [TYPES[p.vehicleType] === 'station' ? 'CLASSIC' : 'FREEFLOATING'],
      ...(r.withGeometry ? { operatingZone: { type: 'Polygon', coordinates: [a.polygon.map(([lat, lon]) => [lon, lat])] } } : {}),
    })),
  );
}
