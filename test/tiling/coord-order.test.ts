/** The simulator's answer orders, which the tiling is measured against (issue 11 point 5). */
import { describe, expect, it } from 'vitest';
import { BadParameterError, COORD_ORDERS, DEFAULT_REGION, generateWorld, startSimulator } from '../../src/sim/index.js';
import { parseCoordQuery, runCoordQuery } from '../../src/sim/ops/coord.js';
import { Params } from '../../src/sim/params.js';

const world = generateWorld({ seed: 1, size: 5000 });
const [w, s, e, n] = DEFAULT_REGION;
const box = `boundingBox=&boundingBoxLU=${w}:${n}:WGS84[dd.ddddd]&boundingBoxRL=${e}:${s}:WGS84[dd.ddddd]`;
const query = (max?: number) =>
  parseCoordQuery(new Params(new URLSearchParams(`${box}&inclFilter=1&type_0=ANY${max === undefined ? '' : `&max=${max}`}`)));

describe('CoordInfo answer order of the simulator', () => {
  const all = runCoordQuery(world, query()).pins;

  it('keeps the same hits in every order when nothing is cut, only listed differently', () => {
    const keys = (o: (typeof COORD_ORDERS)[number]) => runCoordQuery(world, query(), o).pins.map((p) => p.pin.key);
    for (const o of COORD_ORDERS) expect([...keys(o)].sort()).toEqual(all.map((p) => p.pin.key).sort());
  });

  it('cuts a capped answer by the chosen order', () => {
    const dist = runCoordQuery(world, query(50), 'distance').pins;
    expect(dist.map((p) => p.distanceM)).toEqual([...all].map((p) => p.distanceM).sort((a, b) => a - b).slice(0, 50));
    const byId = runCoordQuery(world, query(50), 'id').pins.map((p) => p.pin.id ?? p.pin.key);
    expect(byId).toEqual(all.map((p) => p.pin.id ?? p.pin.key).sort().slice(0, 50));
    const random = runCoordQuery(world, query(50), 'random').pins.map((p) => p.pin.key);
    expect(runCoordQuery(world, query(50), 'random').pins.map((p) => p.pin.key)).toEqual(random);
    expect(random).not.toEqual(dist.map((p) => p.pin.key));
    const insertion = runCoordQuery(world, query(50), 'insertion').pins.map((p) => world.pinLayer.base.indexOf(p.pin.key) ?? -1);
    expect(insertion).toEqual([...insertion].sort((a, b) => a - b));
  });

  it('refuses an unknown order', async () => {
    await expect(startSimulator({ world, coordOrder: 'alphabetic' as never })).rejects.toBeInstanceOf(BadParameterError);
  });
});
