/**
 * Reorders `idx[lo, hi)` so that `key[idx[k]]` is the k-th smallest, everything before it is not
 * larger and everything after is not smaller. O(n) expected, in place: planning a million pins must
 * not sort (or copy) the whole index at every level.
 */
export function quickselect(idx: Uint32Array, key: Float64Array, lo: number, hi: number, k: number): void {
  let l = lo;
  let r = hi - 1;
  const at = (i: number): number => key[idx[i]!]!;
  while (r > l) {
    const m = (l + r) >>> 1;
    const a = at(l);
    const b = at(m);
    const c = at(r);
    // Median of three guards against sorted input, which point lists exported from a database often are.
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = l;
    let j = r;
    while (i <= j) {
      while (at(i) < pivot) i++;
      while (at(j) > pivot) j--;
      if (i <= j) {
        const t = idx[i]!;
        idx[i] = idx[j]!;
        idx[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) r = j;
    else if (k >= i) l = i;
    else return;
  }
}

/** Moves indices whose key is below `cut` to the front of `idx[lo, hi)`; returns the boundary. */
export function partitionBelow(idx: Uint32Array, key: Float64Array, lo: number, hi: number, cut: number): number {
  let s = lo;
  for (let i = lo; i < hi; i++) {
    const v = idx[i]!;
    if (key[v]! < cut) {
      idx[i] = idx[s]!;
      idx[s] = v;
      s++;
    }
  }
  return s;
}
