/**
 * The simulated world: pins (huge, typed-array backed), the line network, notices and sharing
 * providers. Query semantics of the API live in ops/; this class only answers plain questions
 * and applies mutations, so every response dialect sees the same data.
 */
import { UnknownObjectError } from './errors.js';
import { closeRing } from './geo.js';
import { Network } from './network.js';
import { PinLayer, type PinHit, type PinSource } from './pin-layer.js';
import { computeTruth, type Truth, type TruthOptions, type TruthRegion } from './truth.js';
import { inBox } from './geo.js';
import type { Area, BBox, Line, NewPin, Notice, Pin, PinType, Provider, PublicationStatus, SharingStation, Stop } from './types.js';

export interface WorldParts {
  readonly pins: PinSource;
  readonly network: Network;
  readonly notices: readonly Notice[];
  readonly providers: readonly Provider[];
  /** Stations of station-based sharing; none unless the world was given some. */
  readonly stations?: readonly SharingStation[];
  readonly today: string;
  /** Where the world came from, for logs: `generated seed=1 size=5000` or a directory. */
  readonly origin: string;
  /** Seed of the moving world (vehicles, occupancy); the generator's seed, 0 for loaded worlds. */
  readonly seed?: number;
}

type Types = Iterable<PinType> | undefined;
const asSet = (t: Types): ReadonlySet<PinType> | undefined => (t ? new Set(t) : undefined);
const byKey = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** A station's key in the world: its provider and its own id. */
export const stationKey = (s: Pick<SharingStation, 'providerId' | 'id'>): string => `${s.providerId}/${s.id}`;

export class World {
  readonly pinLayer: PinLayer;
  readonly network: Network;
  /** The date the world treats as today ('YYYY-MM-DD'); tests may move it to age notices. */
  today: string;
  readonly origin: string;
  /** Seed of the moving world: with the clock, it decides every vehicle's and car park's state. */
  readonly seed: number;
  private readonly noticeMap = new Map<string, Notice>();
  private readonly providerMap = new Map<string, Provider>();
  private readonly stationMap = new Map<string, SharingStation>();

  constructor(parts: WorldParts) {
    this.pinLayer = new PinLayer(parts.pins);
    this.network = parts.network;
    this.today = parts.today;
    this.origin = parts.origin;
    this.seed = parts.seed ?? 0;
    for (const n of parts.notices) this.noticeMap.set(n.id, n);
    for (const p of parts.providers) this.providerMap.set(p.id, p);
    for (const s of parts.stations ?? []) this.addStation(s);
  }

  get bbox(): BBox { return this.pinLayer.bbox; }
  get pinCount(): number { return this.pinLayer.count; }

  pinsInBox(bbox: BBox, types?: Types): Iterable<Pin> { return this.pinLayer.inBox(bbox, asSet(types)); }
  pinsInCircle(lon: number, lat: number, radiusM: number, types?: Types): Iterable<PinHit> {
    return this.pinLayer.inCircle(lon, lat, radiusM, asSet(types));
  }
  allPins(types?: Types): Iterable<Pin> { return this.pinLayer.all(asSet(types)); }
  pin(key: string): Pin | undefined { return this.pinLayer.get(key); }

  /** A STOP pin as a stop: its MOT types are its own plus those of the lines serving it. */
  stopOf(pin: Pin): Stop {
    const mots = new Set(pin.motTypes ?? []);
    const id = pin.id ?? pin.key;
    for (const l of this.network.linesAt(id)) mots.add(l.mot);
    return {
      id, ...(pin.globalId !== undefined ? { globalId: pin.globalId } : {}),
      name: pin.name, lon: pin.lon, lat: pin.lat, motTypes: [...mots].sort((a, b) => a - b),
    };
  }
  /** The stop with this id (the deployment's own, local or global). */
  stop(id: string): Stop | undefined {
    const p = this.pin(id);
    return p && p.type === 'STOP' ? this.stopOf(p) : undefined;
  }
  /** The stop with this global id, whatever its own id is. */
  stopByGlobalId(globalId: string): Stop | undefined {
    const p = this.pinLayer.getByGlobalId(globalId);
    return p && p.type === 'STOP' ? this.stopOf(p) : undefined;
  }
  /**
   * A stop named in a request: by its id, else by its global id, since EFA servers resolve a
   * global id (de:08111:6008) where they take a stop id, also where they number stops locally.
   */
  findStop(idOrGlobalId: string): Stop | undefined {
    return this.stop(idOrGlobalId) ?? this.stopByGlobalId(idOrGlobalId);
  }
  stops(): Stop[] { return [...this.allPins(['STOP'])].map((p) => this.stopOf(p)).sort(byKey); }

  lines(): Line[] { return this.network.lines().sort(byKey); }
  line(id: string): Line | undefined { return this.network.line(id); }
  linesAtStop(stopId: string): Line[] { return this.network.linesAt(stopId); }
  linesByName(name: string): Line[] { return this.network.byName(name); }

  notices(): Notice[] { return [...this.noticeMap.values()].sort(byKey); }
  notice(id: string): Notice | undefined { return this.noticeMap.get(id); }
  noticeStatus(n: Notice, date: string = this.today): PublicationStatus {
    return n.validTo < date ? 'history' : n.validFrom > date ? 'future' : 'current';
  }
  currentNotices(date: string = this.today): Notice[] {
    return this.notices().filter((n) => this.noticeStatus(n, date) === 'current');
  }

  providers(): Provider[] { return [...this.providerMap.values()].sort(byKey); }
  provider(id: string): Provider | undefined { return this.providerMap.get(id); }

  /** Sharing stations, by provider and id. Few enough (hundreds) to be scanned per request. */
  stations(): SharingStation[] { return [...this.stationMap.values()].sort((a, b) => compareKeys(stationKey(a), stationKey(b))); }
  stationsInBox(bbox: BBox): SharingStation[] { return this.stations().filter((s) => inBox(s.lon, s.lat, bbox)); }

  /** What an exhaustive sweep of the region must produce (see truth.ts). */
  truth(region: TruthRegion, opts: TruthOptions = {}): Truth { return computeTruth(this, region, opts); }

  // ---- mutations (incremental-refresh tests) ----

  addPin(p: NewPin): Pin { return this.pinLayer.add(p); }
  movePin(key: string, lon: number, lat: number): Pin { return this.pinLayer.update(key, { lon, lat }); }
  renamePin(key: string, name: string): Pin { return this.pinLayer.update(key, { name }); }
  updatePin(key: string, patch: Partial<Pick<Pin, 'name' | 'lon' | 'lat' | 'attrs' | 'motTypes'>>): Pin {
    return this.pinLayer.update(key, patch);
  }
  removePin(key: string): void { this.pinLayer.remove(key); }

  addLine(line: Line, stopIds: readonly string[] = []): void { this.network.addLine(line, stopIds); }
  changeLine(id: string, patch: Partial<Omit<Line, 'id'>>): Line { return this.network.changeLine(id, patch); }
  removeLine(id: string): void { this.network.removeLine(id); }
  addLineAtStop(stopId: string, lineId: string): void { this.network.addLineAtStop(stopId, lineId); }
  removeLineAtStop(stopId: string, lineId: string): void { this.network.removeLineAtStop(stopId, lineId); }

  addNotice(n: Notice): void {
    if (this.noticeMap.has(n.id)) throw new RangeError(`notice already exists: ${n.id}`);
    this.noticeMap.set(n.id, n);
  }
  changeNotice(id: string, patch: Partial<Omit<Notice, 'id'>>): Notice {
    const cur = this.noticeMap.get(id);
    if (!cur) throw new UnknownObjectError('notice', id);
    const next = { ...cur, ...patch, id };
    this.noticeMap.set(id, next);
    return next;
  }
  /** Ends a notice: its validity stops on `lastDay` (default yesterday), so it becomes history today. */
  endNotice(id: string, lastDay?: string): Notice {
    const cur = this.noticeMap.get(id);
    if (!cur) throw new UnknownObjectError('notice', id);
    const d = new Date(`${this.today}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() - 1);
    const end = lastDay ?? d.toISOString().slice(0, 10);
    return this.changeNotice(id, { validTo: end < cur.validFrom ? cur.validFrom : end });
  }

  addProvider(p: Provider): void {
    if (this.providerMap.has(p.id)) throw new RangeError(`provider already exists: ${p.id}`);
    this.providerMap.set(p.id, p);
  }
  /** Adds or replaces one operating area of a provider (the ring is closed if needed). */
  setArea(providerId: string, area: Area): void {
    const p = this.providerMap.get(providerId);
    if (!p) throw new UnknownObjectError('provider', providerId);
    const fixed: Area = { ...area, polygon: closeRing(area.polygon) };
    const areas = p.areas.some((a) => a.id === area.id)
      ? p.areas.map((a) => (a.id === area.id ? fixed : a))
      : [...p.areas, fixed];
    this.providerMap.set(providerId, { ...p, areas });
  }
  addStation(s: SharingStation): void {
    if (this.stationMap.has(stationKey(s))) throw new RangeError(`station already exists: ${stationKey(s)}`);
    this.stationMap.set(stationKey(s), s);
  }
  changeStation(providerId: string, id: string, patch: Partial<Omit<SharingStation, 'id' | 'providerId'>>): SharingStation {
    const cur = this.stationMap.get(stationKey({ providerId, id }));
    if (!cur) throw new UnknownObjectError('station', `${providerId}/${id}`);
    const next = { ...cur, ...patch };
    this.stationMap.set(stationKey(cur), next);
    return next;
  }
  removeStation(providerId: string, id: string): void {
    if (!this.stationMap.delete(stationKey({ providerId, id }))) throw new UnknownObjectError('station', `${providerId}/${id}`);
  }

  /** A provider leaves the deployment with all its areas (its OpArea answer no longer lists it). */
  removeProvider(id: string): void {
    if (!this.providerMap.delete(id)) throw new UnknownObjectError('provider', id);
  }
  removeArea(providerId: string, areaId: string): void {
    const p = this.providerMap.get(providerId);
    if (!p || !p.areas.some((a) => a.id === areaId)) throw new UnknownObjectError('area', `${providerId}/${areaId}`);
    this.providerMap.set(providerId, { ...p, areas: p.areas.filter((a) => a.id !== areaId) });
  }
}
