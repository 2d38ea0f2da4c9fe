import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { density, densityScale } from './map.js';
import type { BBox } from '../tiling/types.js';
import { stratumName, type ReportArea, type ReportLayers, type TileStratum } from './queries.js';

/**
 * The report's interactive map: Leaflet (from npm, inlined, no tile server) over a graticule, with
 * the swept tiles by outcome (and by stratum, of a night by a pilot), operating areas, stops, POIs and
 * parking as layers to toggle, names on hover, and failed and capped tiles drawn on top of everything
 * with a list that zooms to each.
 */
export interface LiveMapInput {
  readonly extent: BBox;
  /** The leaf tiles by stratum, the largest first (`tileStrata`). */
  readonly strata: readonly TileStratum[];
  readonly areas: readonly ReportArea[];
  readonly layers: ReportLayers;
  /** The run's source: the point and area layers hold its rows only, and their names say so. */
  readonly source: string;
}

export interface LiveMap {
  /** The map container and the problem list; placed in the page where the map goes. */
  readonly markup: string;
  /** Scripts to inline, in order (Leaflet, the data, the setup); `hashes` are their CSP sources. */
  readonly scripts: readonly string[];
  readonly hashes: readonly string[];
  readonly css: string;
}

interface LeafletAssets {
  readonly js: string;
  readonly css: string;
}

let assets: LeafletAssets | undefined;

/**
 * Leaflet's files from the installed package. Its CSS names three images (the layers button, the
 * default marker); nothing here uses them and a report must not ask for a file, so the references go.
 */
function leafletAssets(): LeafletAssets {
  if (assets) return assets;
  const require = createRequire(import.meta.url);
  const js = readFileSync(require.resolve('leaflet/dist/leaflet.js'), 'utf8').replace(/\/\/# sourceMappingURL=\S+\s*$/, '');
  const css = readFileSync(require.resolve('leaflet/dist/leaflet.css'), 'utf8').replace(/url\((?!#)[^)]*\)/g, 'none');
  assets = { js, css };
  return assets;
}

/** JSON inside a <script>: `<` escaped so no string in the data can close the element. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

const cspHash = (script: string): string => `'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`;

/** Runs in the page; plain ES5-ish JS because the project's TypeScript has no DOM types. */
const setup = String.raw`(function () {
  var data = JSON.parse(document.getElementById('map-data').textContent);
  var el = document.getElementById('map-live');
  document.documentElement.className += ' js';
  var e = data.extent;
  var bounds = L.latLngBounds([e[1], e[0]], [e[3], e[2]]);
  var map = L.map(el, { attributionControl: false, zoomSnap: 0.5, maxZoom: 19 });
  var panes = [['graticule', 250], ['tiles', 350], ['areas', 400], ['points', 450], ['problems', 620]];
  panes.forEach(function (p) { map.createPane(p[0]).style.zIndex = p[1]; });
  map.getPane('graticule').style.pointerEvents = 'none';
  map.fitBounds(bounds, { padding: [10, 10] });
  var fmt = function (n) { return Number(n).toLocaleString('en-US'); };
  // Names and errors come from the upstream API: text, never markup.
  var esc = function (s) { var d = document.createElement('div'); d.textContent = String(s); return d.innerHTML; };

  // The background: meridians and parallels at a round step, a little beyond the swept area.
  var span = Math.max(e[2] - e[0], e[3] - e[1]);
  var raw = span / 8, mag = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
  var step = [1, 2, 5, 10].map(function (m) { return m * mag; }).filter(function (s) { return s >= raw; })[0];
  var grid = L.layerGroup();
  var x0 = Math.floor((e[0] - span) / step) * step, x1 = e[2] + span, y0 = Math.floor((e[1] - span) / step) * step, y1 = e[3] + span;
  var opts = { pane: 'graticule', className: 'graticule', interactive: false, weight: 1 };
  for (var x = x0; x <= x1; x += step) grid.addLayer(L.polyline([[y0, x], [y1, x]], opts));
  for (var y = y0; y <= y1; y += step) grid.addLayer(L.polyline([[y, x0], [y, x1]], opts));
  grid.addTo(map);

  var label = { done: 'complete', capped: 'capped: hit the answer limit and too small to split', failed: 'failed after every retry' };
  // A night by a pilot swept the area once per stratum (each asking for some types): a stratum's
  // tiles are layers of their own, named by its types. A run without a pilot has one stratum, unnamed
  // (one with no tile at all still lists the tile layers, empty).
  var several = data.strata.length > 1;
  var tiles = [];
  var strata = (data.strata.length > 0 ? data.strata : [{ tiles: [] }]).map(function (st) {
    var byStatus = { done: L.layerGroup(), capped: L.layerGroup(), failed: L.layerGroup() };
    var of = several ? ' of ' + esc(st.name) : '';
    st.tiles.forEach(function (t) {
      var b = [[t.b[1], t.b[0]], [t.b[3], t.b[2]]];
      var problem = t.s !== 'done';
      var r = L.rectangle(b, problem
        ? { pane: 'problems', className: 'tile tile-' + t.s, color: t.s === 'failed' ? '#e31a1c' : '#ff7f00', weight: 4,
            dashArray: t.s === 'failed' ? '8 5' : null, fillColor: t.s === 'failed' ? '#e31a1c' : '#ff7f00', fillOpacity: 0.25 }
        : { pane: 'tiles', className: 'tile tile-done', color: '#ffffff', weight: 0.6, fillColor: t.c, fillOpacity: 0.75 });
      r.bindTooltip('<b>' + (problem ? label[t.s].split(':')[0].toUpperCase() : 'Swept') + '</b> ' + fmt(t.h) + ' objects' + of + ' (' + fmt(t.d) + ' per km²)' +
        (problem ? '<br>' + label[t.s] + (t.err ? '<br>' + esc(t.err) : '') : ''), { sticky: true });
      r.feature = { tile: t.id };
      byStatus[t.s].addLayer(r);
      tiles.push(t);
    });
    return { name: several ? 'Swept tiles (' + esc(st.name) + ')' : 'Swept tiles', byStatus: byStatus };
  });

  var areas = L.layerGroup();
  data.areas.forEach(function (a) {
    var p = L.polygon(a.p.map(function (poly) { return poly.map(function (ring) { return ring.map(function (c) { return [c[1], c[0]]; }); }); }),
      { pane: 'areas', className: 'area', color: '#7b3294', weight: 1.6, fillOpacity: 0.08 });
    p.bindTooltip(esc(a.n), { sticky: true });
    areas.addLayer(p);
  });

  function points(list, cls, color, radius) {
    var g = L.layerGroup();
    list.forEach(function (s) {
      var m = L.circleMarker([s[1], s[0]], { pane: 'points', className: cls, radius: radius, color: color, weight: 1, fillColor: color, fillOpacity: 0.8 });
      m.bindTooltip(s[2] ? esc(s[2]) : '(no name)', { direction: 'top', offset: [0, -4], className: 'name-' + cls });
      g.addLayer(m);
    });
    return g;
  }
  var stops = points(data.stops, 'stop', '#111111', 3.5);
  var pois = points(data.pois, 'poi', '#1b9e77', 3);
  var parking = points(data.parking, 'parking', '#2166ac', 3.5);
  var vehicles = points(data.vehicles, 'vehicle', '#d95f02', 3);

  var count = function (name, shown, total) { return name + ' <span class="n">(' + fmt(total) + (shown < total ? ', ' + fmt(shown) + ' drawn' : '') + ')</span>'; };
  var overlays = {};
  var of = ' of ' + esc(data.source);
  overlays[count('Stops' + of, data.stops.length, data.totals.stops)] = stops;
  overlays[count('Points of interest' + of, data.pois.length, data.totals.pois)] = pois;
  overlays[count('Parking' + of, data.parking.length, data.totals.parking)] = parking;
  if (data.vehicles.length > 0) overlays[count('Sharing vehicles' + of + ' (latest snapshot)', data.vehicles.length, data.totals.vehicles)] = vehicles;
  overlays[count('Sharing operating areas' + of, data.areas.length, data.areas.length)] = areas;
  strata.forEach(function (st) {
    ['done', 'capped', 'failed'].forEach(function (s) {
      var n = st.byStatus[s].getLayers().length;
      overlays[count(st.name + ': ' + (s === 'done' ? 'complete' : s), n, n)] = st.byStatus[s];
    });
  });
  // Strata overlap: only the largest one's complete tiles start shown, so the shades compare the same
  // types; a failed or capped tile of any stratum is a gap and always starts shown.
  var shown = [strata[0].byStatus.done, areas, stops, parking, vehicles];
  ['capped', 'failed'].forEach(function (s) { strata.forEach(function (st) { shown.push(st.byStatus[s]); }); });
  shown.forEach(function (g) { g.addTo(map); });
  L.control.layers(null, overlays, { collapsed: false, sortLayers: false }).addTo(map);
  L.control.scale({ imperial: false }).addTo(map);

  // The problem list under the map: each entry zooms to its tile.
  document.querySelectorAll('#map-problems button[data-tile]').forEach(function (btn) {
    btn.addEventListener('click', function () {
      var t = tiles.filter(function (x) { return x.id === btn.getAttribute('data-tile'); })[0];
      if (t) map.fitBounds([[t.b[1], t.b[0]], [t.b[3], t.b[2]]], { padding: [40, 40], maxZoom: 16 });
    });
  });
  document.getElementById('map-reset').addEventListener('click', function () { map.fitBounds(bounds, { padding: [10, 10] }); });
  var mark = function () { el.setAttribute('data-zoom', String(map.getZoom())); };
  map.on('zoomend', mark);
  mark();
  el.setAttribute('data-ready', 'true');
})();`;

const css = `.map-live{height:580px;border:1px solid #bbb;background:#fbfbf8;margin:8px 0}
.map-live .graticule{stroke:#d6d6d0}.leaflet-container{font:12px/1.4 system-ui,sans-serif}
.leaflet-control-layers label{margin:2px 0}.leaflet-control-layers .n{color:#666}
.map-problems{border-left:4px solid #e31a1c;background:#fff5f5;padding:6px 10px;margin:8px 0}
.map-problems.none{border-color:#4daf4a;background:#f4fbf3}.map-problems button{font:inherit;margin:2px 6px 2px 0;cursor:pointer}
.map-static{display:block}.js .map-static{display:none}.js .map-live-wrap{display:block}.map-live-wrap{display:none}
@media print{.map-live-wrap{display:none!important}.map-static{display:block!important}}`;

/** What the page needs for the interactive map of one run. */
export function renderLiveMap(m: LiveMapInput, problemList: string): LiveMap {
  const round = (v: number): number => Math.round(v * 1e6) / 1e6;
  const data = {
    extent: m.extent,
    source: m.source,
    strata: m.strata.map((stratum) => {
      // Each stratum's own scale: its hits count its own types, so its shades compare like with like.
      const scale = densityScale(stratum.tiles.filter((t) => t.status !== 'failed'));
      return {
        name: stratumName(stratum),
        tiles: stratum.tiles.map((t) => ({
          id: t.tileId, s: t.status === 'split' ? 'done' : t.status, h: t.hits, d: Math.round(density(t) * 10) / 10,
          c: scale.color(density(t)), b: t.bbox.map(round), ...(t.error ? { err: t.error.slice(0, 300) } : {}),
        })),
      };
    }),
    areas: m.areas.map((a) => ({ n: `${a.name ?? a.key} (${a.provider})`, p: a.polygons })),
    stops: m.layers.stops.shown,
    pois: m.layers.pois.shown,
    parking: m.layers.parking.shown,
    vehicles: m.layers.vehicles?.shown ?? [],
    totals: { stops: m.layers.stops.total, pois: m.layers.pois.total, parking: m.layers.parking.total, vehicles: m.layers.vehicles?.total ?? 0 },
  };
  const leaflet = leafletAssets();
  // The data travels as JSON text, not as a script: the setup reads it, so only code needs a CSP hash.
  const dataScript = scriptJson(data);
  const scripts = [leaflet.js.replace(/<\/script/gi, '<\\/script'), setup];
  const markup =
    `<div class="map-live-wrap">${problemList}<div id="map-live" class="map-live" role="application" aria-label="interactive map of the run"></div>` +
    `<p><button type="button" id="map-reset">Show the whole area again</button></p></div>` +
    `<script type="application/json" id="map-data">${dataScript}</script>`;
  return { markup, scripts, hashes: scripts.map(cspHash), css: `${leaflet.css}\n${css}` };
}
