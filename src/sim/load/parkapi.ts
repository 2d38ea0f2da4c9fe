/**
 * ParkAPI lot lists (`parkapi/parkapi-<city>.json`) → parking pins with their real capacities. A
 * lot's reported free count and the file's `last_updated` become the base of its occupancy curve
 * (moving/parking.ts); closed lots, and lots without a capacity, have no real-time data.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { cetOffsetMinutes } from '../clock.js';
import type { Pin } from '../types.js';
import { arr, exists, num, obj, readJson, str } from './files.js';

const FILE = /^parkapi-(.+)\.json$/;

/** ParkAPI writes local time without a zone (`2022-12-08T16:08:21.870905`); as an instant, CET/CEST. */
function instantOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (/(?:Z|[+-]\d{2}:?\d{2})$/.test(text)) return Number.isNaN(Date.parse(text)) ? undefined : new Date(text).toISOString();
  const asUtc = Date.parse(`${text.slice(0, 23)}Z`);
  if (Number.isNaN(asUtc)) return undefined;
  return new Date(asUtc - cetOffsetMinutes(Math.floor(asUtc / 60_000)) * 60_000).toISOString();
}

export async function loadParkApi(root: string): Promise<Pin[]> {
  const dir = join(root, 'parkapi');
  if (!(await exists(dir))) return [];
  const pins: Pin[] = [];
  for (const file of (await readdir(dir)).sort()) {
    const city = FILE.exec(file)?.[1];
    if (city === undefined) continue;
    const doc = obj(await readJson(join(dir, file)));
    const updated = instantOf(str(doc.last_updated));
    arr(doc.lots).forEach((l, i) => {
      const o = obj(l), c = obj(o.coords), lon = num(c.lng), lat = num(c.lat);
      if (lon === undefined || lat === undefined) return;
      const type = str(o.lot_type) ?? '';
      const free = num(o.free);
      pins.push({
        key: `parkapi:${city}:${i + 1}`, id: `parkapi:${city}:${i + 1}`, type: 'PARKING', name: str(o.name) ?? type, lon, lat,
        attrs: {
          parkingObjectType: type === 'Parkhaus' ? 1 : 2, capacity: num(o.total) ?? 0, charge: 'pay', parkRide: type === 'Park-Ride', bikeRide: false,
          openingHours: str(o.opening_hours) ?? null,
          ...(str(o.state) === 'closed' ? { _realtime: false } : {}),
          ...(free !== undefined && updated !== undefined ? { _baseFree: free, _baseAt: updated } : {}),
        },
      });
    });
  }
  return pins;
}
