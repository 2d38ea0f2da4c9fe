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

/**
 * Appends the points of a WKB Point or MultiPoint (ST_AsBinary: no SRID, either byte order) to
 * `push`: a page of known pins read as one value instead of a row object per pin. Anything else is
 * refused: the caller asked for points.
 */
export function readWkbPoints(wkb: Uint8Array, push: (lon: number, lat: number) => void): void {
  const view = new DataView(wkb.buffer, wkb.byteOffset, wkb.byteLength);
  const point = (at: number): number => {
    const little = view.getUint8(at) === 1;
    if (view.getUint32(at + 1, little) !== 1) throw new Error(`WKB: a point expected at byte ${at}`);
    push(view.getFloat64(at + 5, little), view.getFloat64(at + 13, little));
    return at + 21;
  };
  const little = view.getUint8(0) === 1;
  const type = view.getUint32(1, little);
  if (type === 1) {
    point(0);
    return;
  }
  if (type !== 4) throw new Error(`WKB: a Point or MultiPoint expected, got type ${type}`);
  const n = view.getUint32(5, little);
  let at = 9;
  for (let i = 0; i < n; i++) at = point(at);
}
