import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../src/sim/index.js';
import { TODAY, c, withSim } from './helpers.js';

const world = generateWorld({ seed: 1, size: 5000, today: TODAY });

describe('StopFinder', () => {
  it('finds a stop by exact id, and by text with one isBest and a hit limit', () => withSim({ world }, async (_s, get) => {
    const stop = world.stops()[10]!;
    const byId = await get('XML_STOPFINDER_REQUEST', `name_sf=${encodeURIComponent(stop.id)}&type_sf=any`);
    expect(byId.body.locations).toHaveLength(1);
    expect(byId.body.locations[0]).toMatchObject({ id: stop.id, name: stop.name, type: 'stop', isBest: true, coord: { lat: stop.lat, lon: stop.lon } });
    const text = await get('XML_STOPFINDER_REQUEST', `name_sf=${encodeURIComponent(stop.name)}&type_sf=any`);
    const locs = text.body.locations;
    expect(locs.filter((l) => l.isBest)).toHaveLength(1);
    const best = locs.find((l) => l.isBest)!;
    expect(best.name).toBe(stop.name);
    expect(best.matchQuality).toBe(Math.max(...locs.map((l) => l.matchQuality)));
    const fuzzy = await get('XML_STOPFINDER_REQUEST', 'name_sf=schiller&type_sf=any');
    expect(fuzzy.body.locations.length).toBeGreaterThan(3);
    expect(fuzzy.body.locations.findIndex((l) => l.isBest)).toBeGreaterThanOrEqual(0);
    const limited = await get('XML_STOPFINDER_REQUEST', 'name_sf=schiller&type_sf=any&anyMaxSizeHitList=2');
    expect(limited.body.locations).toHaveLength(2);
    const strict = await get('XML_STOPFINDER_REQUEST', 'name_sf=schiller&type_sf=any&prMinQu=85');
    expect(strict.body.locations.every((l) => l.matchQuality >= 850)).toBe(true);
    expect(strict.body.locations.length).toBeLessThan(fuzzy.body.locations.length);
    expect((await get('XML_STOPFINDER_REQUEST', 'name_sf=x&type_sf=any&prMinQu=101')).body.error.message).toMatch(/^prMinQu:/);
  }));

  it('coord input returns nearby stops', () => withSim({ world }, async (_s, get) => {
    const r = await get('XML_STOPFINDER_REQUEST', `name_sf=${c(9.18, 48.777)}&type_sf=coord`);
    expect(r.body.locations.length).toBe([...world.pinsInCircle(9.18, 48.777, 1000, ['STOP'])].length);
    expect(r.body.locations.filter((l) => l.isBest)).toHaveLength(1);
  }));
});

describe('ServingLines', () => {
  it('odv lists the lines of a stop, line mode by name; unknown stop is empty', () => withSim({ world }, async (_s, get) => {
    const stop = world.stops().find((s) => world.linesAtStop(s.id).length > 1)!;
    const r = await get('XML_SERVINGLINES_REQUEST', `mode=odv&type_sl=any&name_sl=${encodeURIComponent(stop.id)}&lineReqType=0`);
    expect(r.body.servingLines.map((l) => l.id)).toEqual(world.linesAtStop(stop.id).map((l) => l.id));
    expect(typeof r.body.servingLines[0]!.mot).toBe('number');
    const name = world.lines()[0]!.name;
    const byName = await get('XML_SERVINGLINES_REQUEST', `mode=line&lineName=${encodeURIComponent(name)}&lineReqType=0`);
    expect(byName.body.servingLines.length).toBeGreaterThanOrEqual(2);
    expect(byName.body.servingLines.every((l) => l.name === name)).toBe(true);
    expect((await get('XML_SERVINGLINES_REQUEST', 'mode=odv&type_sl=any&name_sl=de:0:0&lineReqType=0')).body.servingLines).toEqual([]);
    expect((await get('XML_SERVINGLINES_REQUEST', 'mode=odv&type_sl=any&name_sl=x')).body.error.message).toMatch(/^lineReqType:/);
  }));
});

describe('AddInfo', () => {
  it('current/history, dates DD-MM-YYYY, types, banner, ids, MOT and line filters', () => withSim({ world }, async (_s, get) => {
    const ids = async (q: string): Promise<string[]> => (await get('XML_ADDINFO_REQUEST', q)).body.infos.map((i) => i.id);
    expect(await ids('')).toEqual(world.currentNotices().map((n) => n.id));
    expect(await ids('filterPublicationStatus=current')).toEqual(world.currentNotices().map((n) => n.id));
    expect(await ids('filterPublicationStatus=history')).toEqual(world.notices().filter((n) => n.validTo < TODAY).map((n) => n.id));
    expect(await ids('filterDateValid=22-11-2026')).toEqual(world.currentNotices().map((n) => n.id));
    expect(await ids('filterDateValidComponentsActive=1&filterDateValidDay=22&filterDateValidMonth=11&filterDateValidYear=2026')).toEqual(world.currentNotices().map((n) => n.id));
    const bad = await get('XML_ADDINFO_REQUEST', 'filterDateValid=2026-11-22');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^filterDateValid:/);
    expect((await get('XML_ADDINFO_REQUEST', 'filterValidIntervalStart=20261122')).body.error.message).toMatch(/^filterValidIntervalStart:/);
    const future = world.notices().filter((n) => n.validFrom > TODAY);
    const last = future.map((n) => n.validTo).sort().at(-1)!;
    const dmy = (iso: string): string => iso.split('-').reverse().join('-');
    const inInterval = await ids(`filterValidIntervalStart=${dmy('2026-11-23')}&filterValidIntervalEnd=${dmy(last)}`);
    for (const n of future) expect(inInterval).toContain(n.id);
    const banner = await ids('filterInfoType=bannerInfo');
    expect(banner.length).toBeGreaterThan(0);
    expect(await ids('filterInfoType=bannerInfo&hideBannerInfo=1')).toEqual([]);
    expect((await get('XML_ADDINFO_REQUEST', 'filterInfoType=alert')).status).toBe(400);
    const one = world.currentNotices()[0]!;
    expect(await ids(`filterInfoID=${one.id}`)).toEqual([one.id]);
    const key = one.lines[0]!;
    const [net, line, , dir] = key.split(':');
    expect(await ids(`filterPNLineDir=${net}:${line}:${dir}`)).toContain(one.id);
    const mot = world.lines().find((l) => l.id.startsWith(`${key}:`))!.mot;
    expect(await ids(`filterMOTType=${mot}`)).toContain(one.id);
    const r = await get('XML_ADDINFO_REQUEST', `filterInfoID=${one.id}`);
    expect(r.body.infos[0]).toMatchObject({ id: one.id, type: one.type, validFrom: one.validFrom, validTo: one.validTo, lines: one.lines, severity: one.severity });
  }));
});

describe('OpArea', () => {
  it('ALL with and without geometry; closed [lat, lon] rings', () => withSim({ world }, async (_s, get) => {
    const r = await get('XML_OPAREA_REQUEST', 'opareaSM=ALL&operatingZoneGeometry=1');
    expect(r.body.providers.map((p) => p.id)).toEqual(world.providers().map((p) => p.id));
    for (const p of r.body.providers) for (const a of p.areas) {
      expect(a.polygon![0]).toEqual(a.polygon![a.polygon!.length - 1]);
      for (const [lat, lon] of a.polygon!) { expect(lat).toBeGreaterThan(48.5); expect(lon).toBeLessThan(9.5); }
    }
    const bare = await get('XML_OPAREA_REQUEST', 'opareaSM=ALL');
    expect(bare.body.providers[0]!.areas[0]!.polygon).toBeUndefined();
  }));

  it('RADIAL needs opASR=1, defaults to 500 m, and honours vehPId/opAreaId pairs and vehSF', () => withSim({ world }, async (_s, get) => {
    expect((await get('XML_OPAREA_REQUEST', `opareaSM=RADIAL&coordRadius=${c(9.18, 48.777)}`)).body.error.message).toMatch(/^opASR:/);
    const centre = await get('XML_OPAREA_REQUEST', `opareaSM=RADIAL&opASR=1&coordRadius=${c(9.18, 48.777)}`);
    expect(centre.body.providers.length).toBe(3);
    // A point ~400 m outside the big car area: inside the default 500 m, outside 300 m.
    const ring = world.provider('simcar')!.areas[0]!.polygon;
    const [lat0, lon0] = ring[0]!;
    const lon = lon0 + 400 / (111_320 * Math.cos((lat0 * Math.PI) / 180));
    const near = await get('XML_OPAREA_REQUEST', `opareaSM=RADIAL&opASR=1&coordRadius=${c(lon, lat0)}`);
    expect(near.body.providers.map((p) => p.id)).toContain('simcar');
    const tight = await get('XML_OPAREA_REQUEST', `opareaSM=RADIAL&opASR=1&coordRadius=${c(lon, lat0)}:300`);
    expect(tight.body.providers.map((p) => p.id)).not.toContain('simcar');
    const pair = await get('XML_OPAREA_REQUEST', 'opareaSM=ALL&vehPId0=simscoot&opAreaId0=simscoot-2&vehPId1=simrad');
    expect(pair.body.providers.map((p) => [p.id, p.areas.map((a) => a.id)])).toEqual([
      ['simrad', ['simrad-1', 'simrad-2']], ['simscoot', ['simscoot-2']],
    ]);
    expect((await get('XML_OPAREA_REQUEST', 'opareaSM=ALL&opAreaId3=x')).body.error.message).toMatch(/^opAreaId3:/);
    expect((await get('XML_OPAREA_REQUEST', 'opareaSM=ALL&vehSF=CAR')).body.providers.map((p) => p.id)).toEqual(['simcar']);
  }));
});
