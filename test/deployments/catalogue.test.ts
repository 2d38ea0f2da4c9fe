/**
 * Issue 55: the catalogue of public EFA deployments, entry by entry. Each check fails when the data
 * is wrong: a broken polygon, a base URL written two ways, a zone Node does not know, an id twice.
 */
import tzlookup from '@photostructure/tz-lookup';
import pointOnFeature from '@turf/point-on-feature';
import { describe, expect, it } from 'vitest';
import { coverageAreaKm2, coverageBBox, coverageContains, coverageProblems } from '../../src/deployments/geo.js';
import { loadDeployments } from '../../src/deployments/load.js';
import { isNormalisedBaseUrl } from '../../src/deployments/schema.js';

const entries = loadDeployments();

describe('the catalogue of deployments', () => {
  it('has at least 30 entries with unique ids', () => {
    expect(entries.length).toBeGreaterThanOrEqual(30);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
  });

  it('keeps the ids other files already name (stable ids)', () => {
    const ids = entries.map((e) => e.id);
    for (const id of ['de-vvs', 'de-vrr', 'de-mvv', 'at-linz', 'au-nsw', 'it-sta', 'ie-tfi']) expect(ids).toContain(id);
  });

  for (const entry of entries) {
    describe(entry.id, () => {
      it('has a simple, closed coverage polygon in [lon, lat] order with an area', () => {
        expect(coverageProblems(entry)).toEqual([]);
        expect(coverageAreaKm2(entry)).toBeGreaterThan(10);
        const [w, s, e, n] = coverageBBox(entry);
        // [lon, lat]: a swapped ring would put these German, Austrian, … networks into the wrong hemisphere or off the map.
        expect(w).toBeGreaterThanOrEqual(-180);
        expect(e).toBeLessThanOrEqual(180);
        expect(s).toBeGreaterThanOrEqual(-90);
        expect(n).toBeLessThanOrEqual(90);
        expect(entry.coverage.coordinates[0]!.length).toBeLessThanOrEqual(64);
      });

      it('lies in the countries it names (the zone of a point inside agrees)', () => {
        const [lon, lat] = pointOnFeature(entry.coverage).geometry.coordinates as [number, number];
        expect(coverageContains(entry, [lon, lat])).toBe(true);
        const zone = tzlookup(lat, lon);
        const computed = entry.sources.timeZone?.some((s) => s.startsWith('computed:')) ?? false;
        if (computed) expect(zone).toBe(entry.timeZone);
      });

      it('writes its base URLs normalised and names a valid IANA zone', () => {
        expect(isNormalisedBaseUrl(entry.baseUrl)).toBe(true);
        for (const e of entry.endpoints) expect(isNormalisedBaseUrl(e.url)).toBe(true);
        expect(Intl.supportedValuesOf('timeZone').includes(entry.timeZone) || entry.timeZone === 'UTC').toBe(true);
      });

      it('names a source for every fact it states', () => {
        const stated = Object.keys(entry).filter((k) => !['$schema', 'id', 'sources', 'endpointChoice'].includes(k));
        expect(Object.keys(entry.sources).sort()).toEqual(stated.sort());
      });
    });
  }
});
