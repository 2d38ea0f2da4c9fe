import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/index.js';

export const TODAY = '2026-11-22';

export interface PinJ { type: string; id?: string; name: string; coord: { lat: number; lon: number }; motTypes?: string; distance: number; [k: string]: unknown }
export interface LocJ { id: string; name: string; type: string; isBest: boolean; matchQuality: number; coord: { lat: number; lon: number } }
export interface LineJ { name: string; number: string; mot: number; direction: string; id: string }
export interface InfoJ { id: string; type: string; validFrom: string; validTo: string; lines: string[]; severity: string }
export interface ProvJ { id: string; name: string; vehicleType: string; areas: { id: string; name: string; polygon?: [number, number][] }[] }
export interface Body { pins: PinJ[]; locations: LocJ[]; servingLines: LineJ[]; infos: InfoJ[]; providers: ProvJ[]; error: { message: string } }
export interface Reply { status: number; body: Body; text: string; headers: Headers }
export type Get = (op: string, q: string) => Promise<Reply>;

export async function withSim<T>(opts: SimulatorOptions, fn: (sim: Simulator, get: Get) => Promise<T>): Promise<T> {
  const sim = await startSimulator({ port: 0, today: TODAY, ...opts });
  const get: Get = async (op, q) => {
    const r = await fetch(`${sim.url}/${op}?outputFormat=JSON&${q}`);
    const text = await r.text();
    let body: Body;
    try { body = JSON.parse(text) as Body; } catch { body = {} as Body; }
    return { status: r.status, body, text, headers: r.headers };
  };
  try { return await fn(sim, get); } finally { await sim.stop(); }
}

export const c = (lon: number, lat: number): string => `${lon}:${lat}:WGS84[dd.ddddd]`;
