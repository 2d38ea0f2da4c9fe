/**
 * A point as hex EWKB (little endian, with its SRID): what PostGIS prints a geometry as, and reads
 * back without parsing text. A COPY of a million pins as EWKT cost the server a text parse per row;
 * the bytes hold the very doubles, so the stored geometry is the same.
 */
const buffer = Buffer.alloc(25);
/** wkbPoint with the EWKB SRID flag. */
const POINT_WITH_SRID = 0x20000001;

export function pointEwkbHex(lon: number, lat: number, srid = 4326): string {
  buffer.writeUInt8(1, 0);
  buffer.writeUInt32LE(POINT_WITH_SRID, 1);
  buffer.writeUInt32LE(srid, 5);
  buffer.writeDoubleLE(lon, 9);
  buffer.writeDoubleLE(lat, 17);
  // One native hex encoding: half the time of 25 table look-ups and concatenations per point.
  return buffer.toString('hex');
}
