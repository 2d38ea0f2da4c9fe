import { describe, expect, it } from 'vitest';
import { coordSweepSchema } from '../../../src/job/index.js';
import { coordRequest } from '../../../src/sweep/nightly/coord.js';
import { inStratum, makeTile } from '../../../src/tiling/geo.js';

/** A CoordInfo request asks what its tile asks for: every type of the job, or a pilot stratum's types only. */
describe('coordRequest', () => {
  const cfg = coordSweepSchema.parse({ types: ['STOP', 'POI_POINT', 'BUS_POINT'], maxPerRequest: 150, inclMOT: [0, 5], parking: {} });
  const box = makeTile([9.1, 48.7, 9.2, 48.8], 0);

  it('a tile of every type: a block per type of the job, MOT filters on the stop block, the parking box', () => {
    const r = coordRequest(cfg, box);
    expect(r.filters).toEqual([{ type: 'STOP', inclMOT: [0, 5] }, { type: 'POI_POINT' }, { type: 'BUS_POINT' }]);
    expect(r.parkingBBox).toEqual([9.1, 48.7, 9.2, 48.8]);
    expect(r.max).toBe(150);
  });

  it('a stratum without PARKING: its types only, in the job\'s order, and no parking parameters', () => {
    const r = coordRequest(cfg, inStratum(box, ['BUS_POINT', 'STOP']));
    expect(r.filters).toEqual([{ type: 'STOP', inclMOT: [0, 5] }, { type: 'BUS_POINT' }]);
    expect(r.parkingBBox).toBeUndefined();
    expect(r.parkingObjectType).toBeUndefined();
  });

  it('a stratum of PARKING and POIs: the POI block and the parking box, no stop block', () => {
    const r = coordRequest(cfg, inStratum(box, ['PARKING', 'POI_POINT']));
    expect(r.filters).toEqual([{ type: 'POI_POINT' }]);
    expect(r.parkingBBox).toEqual([9.1, 48.7, 9.2, 48.8]);
    expect(r.parkingObjectType).toBe('all');
  });
});
