/** The simulator's answer orders, which the tiling is measured against (issue 11 point 5). */
import { describe, expect, it } from 'vitest';
import { BadParameterError, COORD_ORDERS, DEFAULT_REGION, generateWorld, startSimulator } from '../../src/sim/index.js';
import { changeWorld } from '../../src/sim/change.js';
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

  it('keeps, with a max in the distance order, exactly the full answer sorted and cut (the simulator selects the nearest without sorting every hit)', () => {
    const changed = generateWorld({ seed: 3, size: 4000 });
    changeWorld(changed, 0.2, 5);
    const at = new Date('2026-11-24T09:30:00+01:00');
    const place = (x: number, y: number): string => `${x}:${y}:WGS84[dd.ddddd]`;
    const areas = [
      box,
      `boundingBox=&boundingBoxLU=${place(9.15, 48.8)}&boundingBoxRL=${place(9.2, 48.76)}`,
      `coord=${place(9.18, 48.777)}`,
      `coord=${place(9.1, 48.75)}`,
    ];
    const filters = [
      'inclFilter=1&type_0=ANY&radius_0=3000',
      'inclFilter=1&type_0=STOP&radius_0=2500&inclMOT_0=5&type_1=POI_POINT&radius_1=900',
      'inclFilter=1&type_0=STOP&radius_0=2000&exclMOT_0=5&type_1=STOP&radius_1=800',
      'inclFilter=1&type_0=POI_POINT&radius_0=1500&type_1=ANY&radius_1=2000',
    ];
    const parking = '&parkingSearchMethod=BB&parkingBB=1&parkingBBLU=' + place(9.1, 48.8) + '&parkingBBRL=' + place(9.25, 48.74) + '&parkObjInfo=1&parkObjInfoRealtime=1';
    let compared = 0;
    for (const w of [world, changed]) {
      for (const area of areas) {
        for (const filter of filters) {
          for (const extra of ['', parking]) {
            const text = `${area}&${filter}${extra}`;
            const full = runCoordQuery(w, parseCoordQuery(new Params(new URLSearchParams(text))), 'distance', at).pins;
            for (const max of [1, 7, 100, full.length + 3]) {
              const cut = runCoordQuery(w, parseCoordQuery(new Params(new URLSearchParams(`${text}&max=${max}`))), 'distance', at).pins;
              expect(cut).toEqual(full.slice(0, max));
              compared += cut.length;
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(10_000);
  });

  it('refuses an unknown order', async () => {
    await expect(startSimulator({ world, coordOrder: 'alphabetic' as never })).rejects.toBeInstanceOf(BadParameterError);
  });
});
