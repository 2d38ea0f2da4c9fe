import { calcTreeSize, generateLevelBounds, NODE_ITEM_BYTE_LEN } from 'flatgeobuf/lib/mjs/packedrtree.js';

/**
 * The packed Hilbert R-tree of a FlatGeobuf file (spec v3, `packedrtree.cpp` of the reference
 * implementation): features sorted by the Hilbert value of their bbox centre, then a static tree
 * of 40-byte nodes (minX, minY, maxX, maxY as float64, offset as uint64), the root first and the
 * leaves last. A leaf's offset is its feature's byte offset from the start of the features; an
 * inner node's is the index of its first child. The `flatgeobuf` package reads such trees
 * (calcTreeSize, generateLevelBounds, streamSearch) but does not build them.
 */

export const INDEX_NODE_SIZE = 16;

const HILBERT_MAX = (1 << 16) - 1;

/** The Hilbert curve index of a 16-bit x, y (rawrunprotected/hilbert_curves, as the reference uses). */
function hilbert(x: number, y: number): number {
  let a = x ^ y;
  let b = 0xffff ^ a;
  let c = 0xffff ^ (x | y);
  let d = x & (y ^ 0xffff);
  let A = a | (b >>> 1);
  let B = (a >>> 1) ^ a;
  let C = (c >>> 1) ^ (b & (d >>> 1)) ^ c;
  let D = (a & (c >>> 1)) ^ (d >>> 1) ^ d;
  a = A;
  b = B;
  c = C;
  d = D;
  A = (a & (a >>> 2)) ^ (b & (b >>> 2));
  B = (a & (b >>> 2)) ^ (b & ((a ^ b) >>> 2));
  C ^= (a & (c >>> 2)) ^ (b & (d >>> 2));
  D ^= (b & (c >>> 2)) ^ ((a ^ b) & (d >>> 2));
  a = A;
  b = B;
  c = C;
  d = D;
  A = (a & (a >>> 4)) ^ (b & (b >>> 4));
  B = (a & (b >>> 4)) ^ (b & ((a ^ b) >>> 4));
  C ^= (a & (c >>> 4)) ^ (b & (d >>> 4));
  D ^= (b & (c >>> 4)) ^ ((a ^ b) & (d >>> 4));
  a = A;
  b = B;
  c = C;
  d = D;
  C ^= (a & (c >>> 8)) ^ (b & (d >>> 8));
  D ^= (b & (c >>> 8)) ^ ((a ^ b) & (d >>> 8));
  a = C ^ (C >>> 1);
  b = D ^ (D >>> 1);
  let i0 = x ^ y;
  let i1 = b | (0xffff ^ (i0 | a));
  i0 = (i0 | (i0 << 8)) & 0x00ff00ff;
  i0 = (i0 | (i0 << 4)) & 0x0f0f0f0f;
  i0 = (i0 | (i0 << 2)) & 0x33333333;
  i0 = (i0 | (i0 << 1)) & 0x55555555;
  i1 = (i1 | (i1 << 8)) & 0x00ff00ff;
  i1 = (i1 | (i1 << 4)) & 0x0f0f0f0f;
  i1 = (i1 | (i1 << 2)) & 0x33333333;
  i1 = (i1 | (i1 << 1)) & 0x55555555;
  return ((i1 << 1) | i0) >>> 0;
}

/** Per feature, in the order written: its bbox (4 numbers each) and its byte size. */
export interface FeatureBoxes {
  readonly boxes: Float64Array;
  readonly count: number;
}

/** The extent of every box: [minX, minY, maxX, maxY]. */
export function extentOf({ boxes, count }: FeatureBoxes): [number, number, number, number] {
  const e: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < count; i++) {
    e[0] = Math.min(e[0], boxes[i * 4] ?? Infinity);
    e[1] = Math.min(e[1], boxes[i * 4 + 1] ?? Infinity);
    e[2] = Math.max(e[2], boxes[i * 4 + 2] ?? -Infinity);
    e[3] = Math.max(e[3], boxes[i * 4 + 3] ?? -Infinity);
  }
  return e;
}

/** The order to write the features in: descending Hilbert value of each box's centre, as the reference sorts. */
export function hilbertOrder(features: FeatureBoxes): Uint32Array {
  const { boxes, count } = features;
  const [minX, minY, maxX, maxY] = extentOf(features);
  const width = maxX - minX || 1;
  const height = maxY - minY || 1;
  const values = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const cx = ((boxes[i * 4] ?? 0) + (boxes[i * 4 + 2] ?? 0)) / 2;
    const cy = ((boxes[i * 4 + 1] ?? 0) + (boxes[i * 4 + 3] ?? 0)) / 2;
    values[i] = hilbert(Math.floor((HILBERT_MAX * (cx - minX)) / width), Math.floor((HILBERT_MAX * (cy - minY)) / height));
  }
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  return order.sort((a, b) => (values[b] ?? 0) - (values[a] ?? 0));
}

/**
 * The tree's bytes for features written in `order`, the feature `order[k]` at byte `offsets[k]`
 * of the features section.
 */
export function buildTree(features: FeatureBoxes, order: Uint32Array, offsets: Float64Array): Uint8Array {
  const count = features.count;
  const bytes = new Uint8Array(calcTreeSize(count, INDEX_NODE_SIZE));
  const view = new DataView(bytes.buffer);
  const nodes = bytes.length / NODE_ITEM_BYTE_LEN;
  const box = new Float64Array(nodes * 4);
  const offset = new Float64Array(nodes);
  const levels = generateLevelBounds(count, INDEX_NODE_SIZE);
  const leaves = levels[0]?.[0] ?? 0;
  for (let k = 0; k < count; k++) {
    const i = order[k] ?? 0;
    for (let j = 0; j < 4; j++) box[(leaves + k) * 4 + j] = features.boxes[i * 4 + j] ?? 0;
    offset[leaves + k] = offsets[k] ?? 0;
  }
  // Each level's nodes cover INDEX_NODE_SIZE nodes of the level below, from the leaves up to the root.
  for (let l = 0; l < levels.length - 1; l++) {
    const [start, end] = levels[l] ?? [0, 0];
    let pos = start;
    let parent = levels[l + 1]?.[0] ?? 0;
    while (pos < end) {
      const p = parent++;
      offset[p] = pos;
      box[p * 4] = Infinity;
      box[p * 4 + 1] = Infinity;
      box[p * 4 + 2] = -Infinity;
      box[p * 4 + 3] = -Infinity;
      for (let j = 0; j < INDEX_NODE_SIZE && pos < end; j++, pos++) {
        box[p * 4] = Math.min(box[p * 4] ?? 0, box[pos * 4] ?? 0);
        box[p * 4 + 1] = Math.min(box[p * 4 + 1] ?? 0, box[pos * 4 + 1] ?? 0);
        box[p * 4 + 2] = Math.max(box[p * 4 + 2] ?? 0, box[pos * 4 + 2] ?? 0);
        box[p * 4 + 3] = Math.max(box[p * 4 + 3] ?? 0, box[pos * 4 + 3] ?? 0);
      }
    }
  }
  for (let n = 0; n < nodes; n++) {
    for (let j = 0; j < 4; j++) view.setFloat64(n * NODE_ITEM_BYTE_LEN + j * 8, box[n * 4 + j] ?? 0, true);
    view.setBigUint64(n * NODE_ITEM_BYTE_LEN + 32, BigInt(offset[n] ?? 0), true);
  }
  return bytes;
}
