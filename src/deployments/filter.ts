import { coverageAreaKm2, distanceToCoverageKm, type LonLat } from './geo.js';
import type { Deployment } from './schema.js';

/** What `efa-sync deployments` filters by; every filter given must hold. */
export interface DeploymentFilter {
  /** ISO 3166-1 (DE) or 3166-2 (DE-BW) code. */
  readonly country?: string | undefined;
  readonly search?: string | undefined;
  readonly near?: LonLat | undefined;
}

export interface DeploymentMatch {
  readonly entry: Deployment;
  /** Kilometres from `near` to the coverage (0 inside); absent without `near`. */
  readonly distanceKm?: number;
}

/** How many entries `near` lists when no coverage contains the point. */
export const NEAREST_WHEN_OUTSIDE = 3;

const fold = (text: string): string => text.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '');

function matchesCountry(entry: Deployment, code: string): boolean {
  const c = code.toUpperCase();
  return c.includes('-') ? (entry.regions ?? []).includes(c) : entry.countries.includes(c);
}

function matchesSearch(entry: Deployment, text: string): boolean {
  const words = fold(text).split(/\s+/).filter(Boolean);
  const hay = fold([entry.id, entry.name, ...entry.countries, ...(entry.regions ?? []), entry.baseUrl].join(' '));
  return words.every((w) => hay.includes(w));
}

/**
 * The entries a filter selects. With `near`: those whose coverage contains the point, smallest
 * coverage first (the local network before the state-wide one); when none does, the nearest few.
 */
export function filterDeployments(entries: readonly Deployment[], filter: DeploymentFilter): DeploymentMatch[] {
  const kept = entries.filter((e) => (filter.country === undefined || matchesCountry(e, filter.country)) && (filter.search === undefined || matchesSearch(e, filter.search)));
  const { near } = filter;
  if (near === undefined) return kept.map((entry) => ({ entry }));
  const measured = kept.map((entry) => ({ entry, distanceKm: distanceToCoverageKm(entry, near), area: coverageAreaKm2(entry) }));
  const inside = measured.filter((m) => m.distanceKm === 0).sort((a, b) => a.area - b.area);
  const chosen = inside.length > 0 ? inside : measured.sort((a, b) => a.distanceKm - b.distanceKm).slice(0, NEAREST_WHEN_OUTSIDE);
  return chosen.map(({ entry, distanceKm }) => ({ entry, distanceKm }));
}

/** `--near 9.18,48.78`: longitude first, as everywhere in efa-sync. */
export function parseLonLat(text: string): LonLat | undefined {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m) return undefined;
  const lon = Number(m[1]);
  const lat = Number(m[2]);
  return Math.abs(lon) <= 180 && Math.abs(lat) <= 90 ? [lon, lat] : undefined;
}
