/**
 * loadWorld: a world from the real open data in a directory laid out like /work/shared/world-data
 * (see its SOURCES.md). Missing parts are skipped; a directory with none of them is an error.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ArrayPins } from '../array-pins.js';
import { todayUtc } from '../dates.js';
import { WorldLoadError } from '../errors.js';
import { generateNotices } from '../generate-extras.js';
import { Network } from '../network.js';
import { makeRng } from '../rng.js';
import type { Notice } from '../types.js';
import { World } from '../world.js';
import { exists } from './files.js';
import { loadGtfs } from './gtfs.js';
import { loadOsm } from './osm.js';
import { loadParkApi } from './parkapi.js';
import { loadSharing } from './sharing.js';

export async function loadWorld(dir: string, opts: { today?: string } = {}): Promise<World> {
  if (!(await exists(dir))) throw new WorldLoadError(dir, 'no such directory');
  const today = opts.today ?? todayUtc();
  const { stops, lines } = await loadGtfs(dir);
  const osm = [...(await loadOsm(dir)), ...(await loadParkApi(dir))];
  const sharing = await loadSharing(dir);
  const pins = [...stops, ...osm, ...sharing.pins];
  if (pins.length === 0) throw new WorldLoadError(dir, 'found no GTFS, OSM or GBFS data');
  // The only real alert is from South Tyrol; notices over the real lines are generated beside it.
  const notices = [...(await siriNotice(dir)), ...generateNotices(makeRng(42), lines, today)];
  return new World({ pins: new ArrayPins(pins), network: new Network(lines), notices, providers: sharing.providers, today, origin: dir });
}

async function siriNotice(dir: string): Promise<Notice[]> {
  const path = join(dir, 'alerts', 'siri-sx-south-tyrol.xml');
  if (!(await exists(path))) return [];
  const xml = await readFile(path, 'utf8');
  const tag = (name: string, attr = ''): string | undefined => new RegExp(`<${name}${attr}[^>]*>([^<]*)</${name}>`).exec(xml)?.[1]?.trim();
  const id = tag('SituationNumber');
  const from = tag('StartTime')?.slice(0, 10);
  const to = tag('EndTime')?.slice(0, 10);
  if (!id || !from || !to) return [];
  const line = tag('LineRef');
  return [{
    id: `siri:${id}`, type: 'routeBlocking', title: tag('Summary', ' xml:lang="de"') ?? tag('Summary') ?? 'Störung',
    text: tag('Description', ' xml:lang="de"') ?? tag('Description') ?? '', validFrom: from, validTo: to,
    lines: line ? [`sta:${line.replaceAll(':', '_')}: :H`] : [], severity: tag('Severity') ?? 'normal',
    providerCode: tag('ParticipantRef') ?? 'STA', sourceSystem: 'SIRI-SX', publishedAt: from, stops: [],
  }];
}
