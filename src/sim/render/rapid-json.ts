/**
 * EFA's rapidJSON (`outputFormat=rapidJSON`), rendered from the same neutral results as the json
 * dialect, so a sweep in either dialect yields the same tables. Shapes follow the public samples
 * (TfNSW coord/stop_finder/add_info, NVBW stop finder, VVS serving lines) and the interface's
 * published JSON schema (OpArea `operatingAreas[]`, coordInfoDetails of parking and sharing).
 */
import type { Dialect } from './efa-json.js';
import { rapidInfos } from './rapid/infos.js';
import { rapidCoordLocations, rapidStopFinderLocations } from './rapid/locations.js';
import { rapidOperatingAreas } from './rapid/operating-areas.js';

/** Every rapidJSON answer starts with the server's version (and, at NVBW, its systemMessages). */
const envelope = (body: Record<string, unknown>): Record<string, unknown> => ({
  version: '10.6.21.17-sim',
  systemMessages: [],
  ...body,
});

export const rapidJson: Dialect = {
  coord: (r) => envelope({ locations: rapidCoordLocations(r) }),
  stopFinder: (r) => envelope({ locations: rapidStopFinderLocations(r) }),
  servingLines: (r) =>
    envelope({
      lines: r.lines.map((l) => ({
        // VVS (EFA 10.2) appends a sixth element to the canonical id; the client cuts it again.
        id: `${l.id}:1`,
        name: l.name,
        disassembledName: l.number,
        number: l.number,
        product: { class: l.mot },
        operator: { name: l.operator },
        destination: { name: l.direction, type: 'stop' },
        properties: { network: l.network },
      })),
    }),
  addInfo: (r) => envelope({ infos: rapidInfos(r) }),
  opArea: (r) => envelope({ operatingAreas: rapidOperatingAreas(r) }),
  // EFA reports failures as systemMessages of type error; the TfNSW gateway adds `error.message`.
  error: (status, message) =>
    // `module` is an enum in the published schema; a simulator is none of its modules.
    envelope({ systemMessages: [{ type: 'error', module: 'UNKNOWN', code: -status, text: message }], error: { status, message } }),
};
