import { expect } from 'vitest';
import { generateWorld, pinTypesFor, type World } from '../../src/sim/index.js';

/** The world and box the client-against-simulator tests ask (client-sim-faults, client-sim-paths). */
export const TODAY = '2026-11-22';
/** [minLon, minLat, maxLon, maxLat]; mutable because the client's box option is a plain tuple. */
export type Box = [number, number, number, number];
/** Near the dense centre: a box that surely has pins, so an empty list would be a lie. */
export const BOX: Box = [9.16, 48.76, 9.19, 48.785];
export const FILTERS = [{ type: 'STOP' as const }, { type: 'POI_POINT' as const }];

/** A small world with pins in BOX (checked: more than ten stops and POIs). */
export function boxWorld(): World {
  const world = generateWorld({ seed: 4, size: 1500, today: TODAY });
  expect([...world.pinsInBox(BOX, pinTypesFor(['STOP', 'POI_POINT']))].length).toBeGreaterThan(10);
  return world;
}

/** The simulator's error body. */
export const simError = (status: number, message: string): string => JSON.stringify({ error: { status, message } });
