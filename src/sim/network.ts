/** Lines and which stops they serve; mutable, because incremental-refresh tests change them. */
import { UnknownObjectError } from './errors.js';
import type { Line } from './types.js';

export class Network {
  private readonly byId = new Map<string, Line>();
  private readonly stopsOfLine = new Map<string, string[]>();
  private readonly linesOfStop = new Map<string, Set<string>>();

  constructor(lines: Iterable<{ line: Line; stops: readonly string[] }> = []) {
    for (const { line, stops } of lines) this.addLine(line, stops);
  }

  lines(): Line[] {
    return [...this.byId.values()];
  }

  line(id: string): Line | undefined {
    return this.byId.get(id);
  }

  /** Stops of a line in travel order. */
  stopsOf(lineId: string): readonly string[] {
    return this.stopsOfLine.get(lineId) ?? [];
  }

  linesAt(stopId: string): Line[] {
    const ids = this.linesOfStop.get(stopId);
    if (!ids) return [];
    const out: Line[] = [];
    for (const id of ids) {
      const l = this.byId.get(id);
      if (l) out.push(l);
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Case-insensitive match on the public name or the number. */
  byName(name: string): Line[] {
    const q = name.trim().toLowerCase();
    return this.lines()
      .filter((l) => l.name.toLowerCase() === q || l.number.toLowerCase() === q)
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  servedStopIds(): IterableIterator<string> {
    return this.linesOfStop.keys();
  }

  addLine(line: Line, stops: readonly string[] = []): void {
    if (this.byId.has(line.id)) throw new RangeError(`line already exists: ${line.id}`);
    this.byId.set(line.id, line);
    this.stopsOfLine.set(line.id, []);
    for (const s of stops) this.addLineAtStop(s, line.id);
  }

  changeLine(id: string, patch: Partial<Omit<Line, 'id'>>): Line {
    const current = this.byId.get(id);
    if (!current) throw new UnknownObjectError('line', id);
    const next = { ...current, ...patch, id };
    this.byId.set(id, next);
    return next;
  }

  removeLine(id: string): void {
    if (!this.byId.delete(id)) throw new UnknownObjectError('line', id);
    for (const s of this.stopsOfLine.get(id) ?? []) this.linesOfStop.get(s)?.delete(id);
    this.stopsOfLine.delete(id);
  }

  addLineAtStop(stopId: string, lineId: string): void {
    const stops = this.stopsOfLine.get(lineId);
    if (!stops) throw new UnknownObjectError('line', lineId);
    if (!stops.includes(stopId)) stops.push(stopId);
    let set = this.linesOfStop.get(stopId);
    if (!set) this.linesOfStop.set(stopId, (set = new Set()));
    set.add(lineId);
  }

  removeLineAtStop(stopId: string, lineId: string): void {
    const set = this.linesOfStop.get(stopId);
    if (!set?.delete(lineId)) throw new UnknownObjectError('stop line', `${stopId} ${lineId}`);
    if (set.size === 0) this.linesOfStop.delete(stopId);
    const stops = this.stopsOfLine.get(lineId);
    if (stops) stops.splice(stops.indexOf(stopId), 1);
  }
}
