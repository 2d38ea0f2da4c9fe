import { startSimulator } from '../src/sim/index.js';
import { rapidJsonDialect } from '../src/efa/dialects/rapidjson.js';
import { toProviderRows } from '../src/relations/sharing.js';
const sim = await startSimulator({ port: 0, seed: 56, size: 1200, dialect: 'rapidjson' });
const r = await fetch(`${sim.url}/XML_OPAREA_REQUEST?outputFormat=rapidJSON&coordOutputFormat=EPSG:4326&opareaSM=ALL`); const t0 = await r.clone().text(); console.log(t0.slice(0,300));
const body = JSON.parse(await r.text());
const a0 = body.operatingAreas[0];
const sp = (v: any): any => typeof v === 'string' ? v + '\ud800' : Array.isArray(v) ? v.map(sp) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sp(x)])) : v;
body.operatingAreas[0] = { ...sp(a0), id: a0.id, type: a0.type };
const parsed = rapidJsonDialect.parse.opArea(JSON.parse(JSON.stringify(body)));
for (const p of parsed.records) {
  const rows = toProviderRows(p);
  const txt = JSON.stringify(rows);
  if (/\\ud[89a-f]/.test(txt)) console.log('UNSTORABLE', txt.match(/.{80}\\ud[89a-f].{20}/g)?.slice(0,3));
}
console.log(parsed.records.length, parsed.rejects.length);
await sim.stop();
