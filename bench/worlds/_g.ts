import { ORDERS } from '../../test/tiling/harness.js';
import { colocatedWorlds } from './generated.js';
import { pilotNights, todayNights } from './night-one.js';
for (const w of colocatedWorlds()) for (const o of ORDERS) {
  const t = todayNights(w, o); const p = pilotNights(w, o);
  console.log(w.name.padEnd(18), o.padEnd(9), 'floor', t.floor, 'today', (t.nightOne / t.floor).toFixed(2), (t.nightTwo / t.floor).toFixed(2), t.unproven, '| pilot', p.pilot, (p.nightOne / p.floor).toFixed(2), (p.nightTwo / p.floor).toFixed(2), p.unproven, p.verdict);
}
