import { legacyDialect } from '../src/efa/dialects/legacy.js';
import { rapidJsonDialect } from '../src/efa/dialects/rapidjson.js';
import { generateWorld } from '../src/sim/index.js';
import { renderers } from '../src/sim/render/index.js';
import { runCoordQuery, parseCoordQuery } from '../src/sim/ops/coord.js';
import { holdsUnstorable } from '../src/efa/text/storable.js';
const world = generateWorld({ seed: 1, size: 60000 });
const pins = [...world.allPins(['STOP', 'POI_POINT'])];
console.log('pins', pins.length);
for (const [name, d] of [['legacy', legacyDialect], ['rapidjson', rapidJsonDialect]] as const) {
  const render = renderers[name];
  const outs = pins.map((pin: any) => ({ pin, ...(pin.type === 'STOP' ? { motTypes: pin.motTypes ?? [1] } : {}), distanceM: 10, extra: { ...pin.attrs } })) as any;
  const bodies: unknown[] = [];
  for (let i = 0; i < outs.length; i += 1000) bodies.push(JSON.parse(JSON.stringify(render.coord({ pins: outs.slice(i, i + 1000) } as any))));
  let best = Infinity, bestWalk = Infinity;
  for (let round = 0; round < 5; round++) {
    let t = performance.now();
    const all: unknown[] = [];
    for (const b of bodies) all.push(...d.parse.coordInfo(b).records);
    best = Math.min(best, performance.now() - t);
    t = performance.now();
    let n = 0;
    for (const r of all) if (holdsUnstorable(r)) n++;
    bestWalk = Math.min(bestWalk, performance.now() - t);
  }
  console.log(name, 'parse incl. storable', best.toFixed(0), 'ms; the storable walk alone', bestWalk.toFixed(0), 'ms', (100 * bestWalk / best).toFixed(1) + '%');
}
{
  const render = renderers['rapidjson'];
  const outs = pins.map((pin: any) => ({ pin, ...(pin.type === 'STOP' ? { motTypes: pin.motTypes ?? [1] } : {}), distanceM: 10, extra: { ...pin.attrs } })) as any;
  const texts: string[] = [];
  for (let i = 0; i < outs.length; i += 1000) texts.push(JSON.stringify(render.coord({ pins: outs.slice(i, i + 1000) } as any)));
  let best = Infinity, bestParse = Infinity;
  const re = /\\u(?:0000|[dD][89a-fA-F])/;
  for (let round = 0; round < 5; round++) {
    let t = performance.now(); let n = 0;
    for (const x of texts) if (re.test(x)) n++;
    best = Math.min(best, performance.now() - t);
    t = performance.now();
    for (const x of texts) rapidJsonDialect.parse.coordInfo(JSON.parse(x));
    bestParse = Math.min(bestParse, performance.now() - t);
  }
  console.log('regex over the bodies', best.toFixed(1), 'ms; JSON.parse + parse', bestParse.toFixed(0), 'ms', (100 * best / bestParse).toFixed(2) + '%');
}
