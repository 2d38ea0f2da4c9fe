/**
 * A realistic nightly job for a real EFA deployment (VVS, Stuttgart). Documented, not run in CI:
 * CI has no network. Run it with `efa-sync run jobs/example-vvs.ts --db postgres://…`.
 * Copied into a project of your own, it needs the package there (`npm pack` here, then `npm install <the .tgz>` there): the import
 * below is the package's public API, which gives your editor the types of every option.
 *
 * Be polite: public EFA servers are shared infrastructure. 3 requests per second and 2 in flight
 * sweep the Stuttgart core (about 9,000 stops and POIs with maxPerRequest 500) in well under an hour.
 */
import { defineJob } from 'efa-sync';

export default defineJob({
  name: 'vvs-stuttgart',
  description: 'Stops, POIs, serving lines, notices and sharing areas of the Stuttgart core, nightly.',
  baseUrl: 'https://www3.vvs.de/mngvvs',
  region: { bbox: [9.05, 48.7, 9.3, 48.85] },
  rateLimit: { requestsPerSecond: 3, concurrency: 2, retries: 5, timeoutMs: 30_000 },
  sweeps: {
    coord: { types: ['STOP', 'POI_POINT'], maxPerRequest: 500, parking: { objectTypes: 'all', info: true } },
    opArea: { mode: 'RADIAL', geometry: true },
    servingLines: { forStops: true, lineNames: ['S1', 'U6'] },
    addInfo: { publicationStatus: 'current', hideBannerInfo: true },
    stopFinder: { names: ['Stuttgart Hauptbahnhof'] },
  },
});
