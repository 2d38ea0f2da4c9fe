import { describe, expect, it } from 'vitest';
import { createSplitMemory } from '../../src/tiling/index.js';
import type { BBox, SplitMemory, Tile } from '../../src/tiling/index.js';

function tile(id: string, bbox: BBox = [9, 48, 9.1, 48.1], depth = 1): Tile {
  return { id, bbox, depth };
}

/** Splits `parent` into children with the given shares (the same share under both readings). */
function split(memory: SplitMemory, parent: Tile, estimate: number, shares: readonly number[]): Tile[] {
  const children = shares.map((share, i) => ({ tile: tile(`${parent.id}.${i}`), share, readingShares: { disc: share, patches: share } }));
  memory.recordSplit(parent, estimate, children);
  return children.map((c) => c.tile);
}

describe('createSplitMemory', () => {
  it('sizes a capped child from what its uncapped siblings held per share of their parent', () => {
    const memory = createSplitMemory();
    const root = tile('r');
    memory.observe(root, 500, true);
    // The parent was thought to hold 1,000 pins; its first child, cut for a quarter, held 400.
    const [a, b] = split(memory, root, 1_000, [0.25, 0.75]);
    expect(memory.expectedTotal(b!)).toBeCloseTo(750); // nothing answered yet: the parent's own estimate
    memory.observe(a!, 400, false);
    memory.observe(b!, 500, true);
    expect(memory.expectedTotal(b!)).toBeCloseTo(1_200); // 400 per quarter: the parent holds 1,600
  });

  it('knows a tile exactly once all its children answered uncapped, and calibrates its siblings with it', () => {
    const memory = createSplitMemory();
    const root = tile('r');
    memory.observe(root, 500, true);
    const [a, b, c] = split(memory, root, 1_500, [0.4, 0.4, 0.2]);
    memory.observe(a!, 500, true);
    const [a1, a2] = split(memory, a!, 900, [0.5, 0.5]);
    memory.observe(a1!, 450, false);
    // Half of `a` is known: it is taken to hold twice that, and so is `b` with the same share.
    expect(memory.expectedTotal(b!)).toBeCloseTo(900);
    memory.observe(a2!, 350, false);
    // `a` held exactly 800 for a share of 0.4: 2,000 per unit, so `c` (0.2) is expected to hold 400.
    expect(memory.expectedTotal(c!)).toBeCloseTo(400);
  });

  it('asks the level above when no sibling has answered yet, and holds a capped tile to at least its cap', () => {
    const memory = createSplitMemory();
    const root = tile('r');
    memory.observe(root, 500, true);
    const [a, b, c] = split(memory, root, 1_000, [0.2, 0.7, 0.1]);
    memory.observe(a!, 450, false);
    memory.observe(b!, 500, true);
    const [b1, b2] = split(memory, b!, 600, [0.5, 0.5]);
    // `a` showed 2,250 per unit of share, so `b` (0.7) holds about 1,575; its children answered nothing yet.
    expect(memory.expectedTotal(b1!)).toBeCloseTo(787.5);
    expect(memory.expectedTotal(b2!)).toBeCloseTo(787.5);
    // `c` (0.1) would be 225 by `a`, but it answered capped at 500: it holds at least that.
    memory.observe(c!, 500, true);
    const [c1] = split(memory, c!, 600, [0.5, 0.5]);
    expect(memory.expectedTotal(c1!)).toBeCloseTo(250);
  });

  it('knows nothing about tiles it did not see split (a covering tile, a resumed run)', () => {
    const memory = createSplitMemory();
    expect(memory.expectedTotal(tile('x'))).toBeUndefined();
    memory.observe(tile('x'), 12, false);
    expect(memory.expectedTotal(tile('x'))).toBeUndefined();
  });

  it('keeps the first answer of a tile answered twice', () => {
    const memory = createSplitMemory();
    const root = tile('r');
    memory.observe(root, 500, true);
    const [a, b] = split(memory, root, 1_000, [0.5, 0.5]);
    memory.observe(a!, 100, false);
    memory.observe(a!, 400, false);
    memory.observe(b!, 500, true);
    expect(memory.expectedTotal(b!)).toBeCloseTo(100);
  });

  it('sizes a capped tile by the kind of estimate that matched exact counts lately, and never below the cap', () => {
    const memory = createSplitMemory();
    const root = tile('r');
    memory.observe(root, 100, true);
    expect(memory.sizeCappedTile(root, { disc: 50, patches: 80 }, 101).total).toBe(101);
    const [a, b, c] = split(memory, root, 400, [0.25, 0.25, 0.5]);
    memory.observe(a!, 100, true);
    // Nothing judged yet: the disc reading of the tile's own answer.
    expect(memory.sizeCappedTile(a!, { disc: 600, patches: 1_000 }, 101).total).toBe(600);
    const [a1, a2] = split(memory, a!, 600, [0.5, 0.5]);
    memory.observe(a1!, 95, false);
    memory.observe(a2!, 90, false);
    // `a` held 185: the memory's 101 (its quarter of the parent's 400) was off by less than the disc's 600.
    memory.observe(b!, 100, true);
    expect(memory.sizeCappedTile(b!, { disc: 190, patches: 2_000 }, 101).total).toBeCloseTo(185);
    const [b1, b2] = split(memory, b!, 185, [0.5, 0.5]);
    memory.observe(b1!, 99, false);
    memory.observe(b2!, 99, false);
    // `a` and `b` held 383 for half the parent: `c`, the other half, is taken to hold as much.
    memory.observe(c!, 100, true);
    expect(memory.sizeCappedTile(c!, { disc: 120, patches: 2_000 }, 101).total).toBeCloseTo(383);
  });

  it('weighs a recapture estimate against its own readings by how far each is expected to be off', () => {
    const memory = createSplitMemory();
    const root = tile('r');
    memory.observe(root, 150, true);
    const [a] = split(memory, root, 151, [0.5, 0.5]);
    memory.observe(a!, 150, true);
    expect(memory.exactAnswers).toBe(0);
    // Nothing judged yet: the answer's readings say only "at least the cap".
    expect(memory.sizeCappedTile(a!, { disc: 151, patches: 151 }, 151).total).toBeCloseTo(151);
    // A sure recapture (small expected error) moves the size most of the way to it; an unsure one less.
    const sure = memory.sizeCappedTile(a!, { disc: 151, patches: 151 }, 151, { total: 1_200, squaredLog2Error: 0.1 }).total;
    const unsure = memory.sizeCappedTile(a!, { disc: 151, patches: 151 }, 151, { total: 1_200, squaredLog2Error: 3 }).total;
    expect(sure).toBeGreaterThan(900);
    expect(sure).toBeLessThan(1_200);
    expect(unsure).toBeGreaterThan(151);
    expect(unsure).toBeLessThan(sure);
    memory.observe(tile('other'), 80, false);
    expect(memory.exactAnswers).toBe(1);
  });
});
