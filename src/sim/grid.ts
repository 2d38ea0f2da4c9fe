/**
 * A uniform-grid spatial index over parallel lon/lat arrays: point indices sorted by cell
 * (a counting sort), so a box query touches only the cells it overlaps. No per-point objects,
 * which is what keeps a million pins cheap.
 */
import type { BBox } from './types.js';

export class GridIndex {
  private readonly cellStart: Uint32Array;
  private readonly order: Uint32Array;
  private readonly cols: number;
  private readonly rows: number;
  private readonly cellW: number;
  private readonly cellH: number;

  constructor(
    private readonly lon: Float64Array,
    private readonly lat: Float64Array,
    private readonly bounds: BBox,
    count: number = lon.length,
    targetPerCell = 8,
  ) {
    const cells = Math.max(1, Math.ceil(count / targetPerCell));
    const w = Math.max(bounds[2] - bounds[0], 1e-9);
    const h = Math.max(bounds[3] - bounds[1], 1e-9);
    // Roughly square cells in degrees keep box queries balanced.
    this.cols = Math.max(1, Math.round(Math.sqrt((cells * w) / h)));
    this.rows = Math.max(1, Math.ceil(cells / this.cols));
    this.cellW = w / this.cols;
    this.cellH = h / this.rows;
    const n = this.cols * this.rows;
    const counts = new Uint32Array(n + 1);
    const cellOf = new Uint32Array(count);
    for (let i = 0; i < count; i++) {
      const c = this.cell(lon[i] ?? 0, lat[i] ?? 0);
      cellOf[i] = c;
      counts[c + 1] = (counts[c + 1] ?? 0) + 1;
    }
    for (let c = 0; c < n; c++) counts[c + 1] = (counts[c + 1] ?? 0) + (counts[c] ?? 0);
    this.cellStart = counts;
    this.order = new Uint32Array(count);
    const fill = counts.slice(0, n);
    for (let i = 0; i < count; i++) {
      const c = cellOf[i] ?? 0;
      const at = fill[c] ?? 0;
      this.order[at] = i;
      fill[c] = at + 1;
    }
  }

  private col(lon: number): number {
    return Math.min(this.cols - 1, Math.max(0, Math.floor((lon - this.bounds[0]) / this.cellW)));
  }
  private row(lat: number): number {
    return Math.min(this.rows - 1, Math.max(0, Math.floor((lat - this.bounds[1]) / this.cellH)));
  }
  private cell(lon: number, lat: number): number {
    return this.row(lat) * this.cols + this.col(lon);
  }

  /**
   * Indices of points inside the box, edges included, by cell. An array, not a generator: a box
   * over a whole 2,000,000-point world spent half its answer resuming a generator per point.
   */
  query(b: BBox): number[] {
    const found: number[] = [];
    if (b[2] < this.bounds[0] || b[0] > this.bounds[2] || b[3] < this.bounds[1] || b[1] > this.bounds[3]) return found;
    const c0 = this.col(b[0]), c1 = this.col(b[2]);
    const r0 = this.row(b[1]), r1 = this.row(b[3]);
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        const cell = r * this.cols + c;
        const end = this.cellStart[cell + 1] ?? 0;
        for (let k = this.cellStart[cell] ?? 0; k < end; k++) {
          const i = this.order[k] ?? 0;
          const x = this.lon[i] ?? NaN, y = this.lat[i] ?? NaN;
          if (x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3]) found.push(i);
        }
      }
    }
    return found;
  }

  /** Bytes held by the index arrays. */
  get byteSize(): number {
    return this.cellStart.byteLength + this.order.byteLength;
  }
}
