/**
 * lon,lat pairs appended one at a time, kept as one growing Float64Array: a million points cost 16 MB,
 * not a million objects (the known pins night two plans from, a pilot's pins).
 */
export class PointList {
  #xy = new Float64Array(2 * 4096);
  #n = 0;
  push(lon: number, lat: number): void {
    if (this.#xy.length < 2 * (this.#n + 1)) {
      const bigger = new Float64Array(this.#xy.length * 2);
      bigger.set(this.#xy);
      this.#xy = bigger;
    }
    this.#xy[2 * this.#n] = lon;
    this.#xy[2 * this.#n + 1] = lat;
    this.#n += 1;
  }
  points(): Float64Array {
    return this.#xy.slice(0, 2 * this.#n);
  }
}
