import type { AreaRow, ProviderRow } from '../normalize/providers.js';
import type { LineRow } from '../normalize/lines.js';
import type { NoticeRow } from '../normalize/notices.js';
import type { PinRow } from '../normalize/pins.js';
import { intArrayLiteral, textArrayLiteral } from './pg-array.js';
import type { TrackedRelation } from './upsert.js';

/** How each entity table is fed: which columns travel, and how SQL turns them into the stored ones. */

const json = (v: unknown): string => JSON.stringify(v);

export const pinsRelation: TrackedRelation<PinRow> = {
  relation: 'pins',
  key: 'pin_key',
  keyOf: (r) => r.pin_key,
  hashOf: (r) => r.content_hash,
  inputs: [
    { name: 'type', arrayType: 'text[]', value: (r) => r.type },
    { name: 'id', arrayType: 'text[]', value: (r) => r.id },
    { name: 'name', arrayType: 'text[]', value: (r) => r.name },
    { name: 'mot', arrayType: 'text[]', value: (r) => intArrayLiteral(r.mot_types) },
    { name: 'lon', arrayType: 'float8[]', value: (r) => r.lon },
    { name: 'lat', arrayType: 'float8[]', value: (r) => r.lat },
    { name: 'attrs', arrayType: 'text[]', value: (r) => json(r.attrs) },
  ],
  targets: [
    { name: 'type', expr: 'type' },
    { name: 'id', expr: 'id' },
    { name: 'name', expr: 'name' },
    { name: 'mot_types', expr: 'mot::integer[]' },
    { name: 'geom', expr: 'ST_SetSRID(ST_MakePoint(lon, lat), 4326)' },
    { name: 'attrs', expr: 'attrs::jsonb' },
  ],
  goneColumn: 'deleted_at',
};

export const linesRelation: TrackedRelation<LineRow> = {
  relation: 'lines',
  key: 'line_key',
  keyOf: (r) => r.line_key,
  hashOf: (r) => r.content_hash,
  inputs: [
    { name: 'line_id', arrayType: 'text[]', value: (r) => r.line_id },
    { name: 'name', arrayType: 'text[]', value: (r) => r.name },
    { name: 'number', arrayType: 'text[]', value: (r) => r.number },
    { name: 'mot', arrayType: 'int[]', value: (r) => r.mot },
    { name: 'direction', arrayType: 'text[]', value: (r) => r.direction },
    { name: 'attrs', arrayType: 'text[]', value: (r) => json(r.attrs) },
  ],
  targets: [
    { name: 'line_id', expr: 'line_id' },
    { name: 'name', expr: 'name' },
    { name: 'number', expr: 'number' },
    { name: 'mot', expr: 'mot' },
    { name: 'direction', expr: 'direction' },
    { name: 'attrs', expr: 'attrs::jsonb' },
  ],
  goneColumn: 'deleted_at',
};

export const noticesRelation: TrackedRelation<NoticeRow> = {
  relation: 'notices',
  key: 'notice_id',
  keyOf: (r) => r.notice_id,
  hashOf: (r) => r.content_hash,
  inputs: [
    { name: 'type', arrayType: 'text[]', value: (r) => r.type },
    { name: 'title', arrayType: 'text[]', value: (r) => r.title },
    { name: 'body', arrayType: 'text[]', value: (r) => r.text },
    { name: 'valid_from', arrayType: 'date[]', value: (r) => r.valid_from },
    { name: 'valid_to', arrayType: 'date[]', value: (r) => r.valid_to },
    { name: 'severity', arrayType: 'text[]', value: (r) => r.severity },
    { name: 'lines', arrayType: 'text[]', value: (r) => textArrayLiteral(r.lines) },
    { name: 'attrs', arrayType: 'text[]', value: (r) => json(r.attrs) },
  ],
  targets: [
    { name: 'type', expr: 'type' },
    { name: 'title', expr: 'title' },
    { name: 'text', expr: 'body' },
    { name: 'valid_from', expr: 'valid_from' },
    { name: 'valid_to', expr: 'valid_to' },
    { name: 'severity', expr: 'severity' },
    { name: 'lines', expr: 'lines::text[]' },
    { name: 'attrs', expr: 'attrs::jsonb' },
  ],
  goneColumn: 'ended_at',
};

export const providersRelation: TrackedRelation<ProviderRow> = {
  relation: 'sharing_providers',
  key: 'provider_id',
  keyOf: (r) => r.provider_id,
  hashOf: (r) => r.content_hash,
  inputs: [
    { name: 'name', arrayType: 'text[]', value: (r) => r.name },
    { name: 'vehicle_type', arrayType: 'text[]', value: (r) => r.vehicle_type },
    { name: 'attrs', arrayType: 'text[]', value: (r) => json(r.attrs) },
  ],
  targets: [
    { name: 'name', expr: 'name' },
    { name: 'vehicle_type', expr: 'vehicle_type' },
    { name: 'attrs', expr: 'attrs::jsonb' },
  ],
  goneColumn: 'deleted_at',
};

/** The SQL that turns a received ring set into a valid MultiPolygon (or an empty one: unrepairable). */
export const repairedAreaGeometry =
  'ST_Multi(ST_CollectionExtract(ST_MakeValid(ST_SetSRID(ST_GeomFromGeoJSON(geojson), 4326)), 3))';

export const areasRelation: TrackedRelation<AreaRow> = {
  relation: 'operating_areas',
  key: 'area_key',
  keyOf: (r) => r.area_key,
  hashOf: (r) => r.content_hash,
  inputs: [
    { name: 'provider_id', arrayType: 'text[]', value: (r) => r.provider_id },
    { name: 'area_id', arrayType: 'text[]', value: (r) => r.area_id },
    { name: 'name', arrayType: 'text[]', value: (r) => r.name },
    { name: 'geojson', arrayType: 'text[]', value: (r) => r.geojson },
    { name: 'attrs', arrayType: 'text[]', value: (r) => json(r.attrs) },
  ],
  targets: [
    { name: 'provider_id', expr: 'provider_id' },
    { name: 'area_id', expr: 'area_id' },
    { name: 'name', expr: 'name' },
    { name: 'geom', expr: `CASE WHEN geojson IS NULL THEN NULL ELSE ${repairedAreaGeometry} END` },
    { name: 'attrs', expr: 'attrs::jsonb' },
  ],
  goneColumn: 'deleted_at',
};
