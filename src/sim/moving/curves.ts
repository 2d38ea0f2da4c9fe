/**
 * Day curves of the moving world: how full car parks are, how many vehicles are out on a rental,
 * and how much of a free-floating fleet the operator takes off the street at night. Hourly anchors
 * in local time, interpolated linearly, so the answer changes a little from minute to minute.
 */
import { localTime } from '../clock.js';
import type { VehicleKind } from '../types.js';

type Hourly = readonly number[];

/** The curve at a fractional hour: linear between the anchors, midnight wrapping round. */
function at(curve: Hourly, hour: number): number {
  const h0 = Math.floor(hour) % 24;
  const f = hour - Math.floor(hour);
  return (curve[h0] ?? 0) * (1 - f) + (curve[(h0 + 1) % 24] ?? 0) * f;
}

// Occupied share of an ordinary car park: fills from 7:00, full around midday, empties in the evening.
const PARK_WEEKDAY: Hourly = [
  0.12, 0.1, 0.08, 0.08, 0.08, 0.1, 0.2, 0.4, 0.65, 0.8, 0.86, 0.88,
  0.85, 0.85, 0.86, 0.84, 0.78, 0.66, 0.52, 0.4, 0.3, 0.22, 0.17, 0.14,
];
const PARK_SATURDAY: Hourly = [
  0.14, 0.12, 0.1, 0.09, 0.08, 0.08, 0.1, 0.15, 0.25, 0.45, 0.62, 0.72,
  0.75, 0.72, 0.7, 0.68, 0.62, 0.5, 0.38, 0.3, 0.25, 0.2, 0.18, 0.16,
];
const PARK_SUNDAY: Hourly = [
  0.15, 0.12, 0.1, 0.09, 0.08, 0.08, 0.08, 0.1, 0.12, 0.18, 0.26, 0.33,
  0.37, 0.4, 0.4, 0.38, 0.34, 0.3, 0.25, 0.2, 0.16, 0.13, 0.12, 0.12,
];
// Park and ride: commuters arrive early and leave after work; nearly empty at weekends.
const PARK_RIDE_WEEKDAY: Hourly = [
  0.05, 0.04, 0.04, 0.04, 0.05, 0.1, 0.25, 0.6, 0.85, 0.93, 0.95, 0.95,
  0.95, 0.94, 0.92, 0.88, 0.8, 0.62, 0.42, 0.28, 0.18, 0.12, 0.08, 0.06,
];
const PARK_RIDE_WEEKEND: Hourly = [
  0.05, 0.05, 0.04, 0.04, 0.04, 0.04, 0.05, 0.07, 0.1, 0.13, 0.16, 0.18,
  0.2, 0.2, 0.2, 0.18, 0.16, 0.13, 0.1, 0.08, 0.07, 0.06, 0.05, 0.05,
];

/** The occupied share (0..1) of a car park of that kind at a UTC minute, before the lot's own factor. */
export function occupancyCurve(utcMinute: number, parkRide: boolean): number {
  const { hour, weekday } = localTime(utcMinute);
  const weekend = weekday === 0 || weekday === 6;
  if (parkRide) return at(weekend ? PARK_RIDE_WEEKEND : PARK_RIDE_WEEKDAY, hour);
  return at(weekday === 6 ? PARK_SATURDAY : weekday === 0 ? PARK_SUNDAY : PARK_WEEKDAY, hour);
}

// Share of a fleet out on a rental: commuter peaks on weekdays, a broad afternoon at weekends.
const RENTED_WEEKDAY: Hourly = [
  0.03, 0.02, 0.02, 0.02, 0.02, 0.04, 0.08, 0.16, 0.22, 0.15, 0.12, 0.12,
  0.14, 0.13, 0.13, 0.15, 0.18, 0.22, 0.2, 0.15, 0.11, 0.08, 0.06, 0.04,
];
const RENTED_WEEKEND: Hourly = [
  0.05, 0.04, 0.03, 0.02, 0.02, 0.02, 0.03, 0.04, 0.06, 0.09, 0.12, 0.15,
  0.17, 0.18, 0.19, 0.19, 0.18, 0.16, 0.14, 0.12, 0.1, 0.08, 0.07, 0.06,
];

/** The share of a fleet out on a rental (absent from every answer) at a UTC minute. */
export function rentedShare(utcMinute: number): number {
  const { hour, weekday } = localTime(utcMinute);
  return at(weekday === 0 || weekday === 6 ? RENTED_WEEKEND : RENTED_WEEKDAY, hour);
}

// How far into the night collection the operator is (0 by day, 1 from 2:00 to 4:00).
const NIGHT: Hourly = [
  0.5, 0.85, 1, 1, 1, 0.8, 0.4, 0.1, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0.05, 0.15, 0.3,
];
/** Share of each kind's free-floating fleet collected for charging and rebalancing in the deep night. */
const NIGHT_COLLECTION: Readonly<Record<VehicleKind, number>> = { MINIVEHICLE: 0.6, BIKE: 0.35, MOTORCYCLE: 0.5, CAR: 0.2, TAXI: 0.7 };

/** The share of a free-floating fleet of this kind off the street at a UTC minute. */
export function offStreetShare(utcMinute: number, kind: VehicleKind): number {
  return at(NIGHT, localTime(utcMinute).hour) * NIGHT_COLLECTION[kind];
}
