import { mergeRows } from '../../db/merge.js';
import type { AddInfoOptions } from '../../efa/index.js';
import { notices, toNoticeRow, withPublication } from '../../relations/index.js';
import type { SweepContext } from './context.js';
import { runUnit } from './unit.js';

/** AddInfo: the notices current on the run date, with the job's filters, one row per notice id. */
export async function sweepAddInfo(ctx: SweepContext): Promise<void> {
  const cfg = ctx.job.sweeps.addInfo;
  if (!cfg) return;
  ctx.progress.phase('addInfo');
  ctx.progress.addTotal(1);
  const { publicationStatus, ...filters } = cfg;
  const options: AddInfoOptions = {
    ...filters,
    filterPublicationStatus: publicationStatus,
    // "Current" on the run date, not on whatever day the server thinks it is.
    ...(publicationStatus === 'current' && !filters.filterDateValid ? { filterDateValid: [ctx.today] } : {}),
  };
  await runUnit(
    ctx,
    { operation: 'addInfo', id: 'all' },
    () => ctx.client.addInfo(options),
    async (tx, result) => {
      // One copy per notice id was kept by the client (current over historic, then the newest version).
      const rows = withPublication(result.records, publicationStatus).map(toNoticeRow);
      await mergeRows(tx, notices, ctx.run, rows);
    },
  );
}
