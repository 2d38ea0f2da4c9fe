/**
 * The real recorded answers of the shared samples (SOURCES.md there says which deployment each came
 * from), each with the catalogue entry of that deployment, the dialect its body is in and what was asked.
 */
import { readFileSync } from 'node:fs';
import { decodeReply } from '../../src/efa/classify.js';
import type { DialectName } from '../../src/efa/dialects/index.js';
import { decodeBody } from '../../src/http/charset.js';
import { SAMPLES_DIR } from '../efa/samples.js';

export interface RecordedAnswer {
  readonly file: string;
  readonly entry: string;
  readonly format: Exclude<DialectName, 'auto' | 'json'>;
  readonly operation: 'coordInfo' | 'stopFinder';
  /** The object types the recorded request asked for (type_1), for a CoordInfo answer. */
  readonly types?: readonly string[];
}

export const RECORDED: readonly RecordedAnswer[] = [
  { file: 'xml/coord-codingcatgirl-vrr.xml', entry: 'de-vrr', format: 'xml', operation: 'coordInfo', types: ['BUS_POINT'] },
  { file: 'xml/stopfinder-codingcatgirl-vrr-list.xml', entry: 'de-vrr', format: 'xml', operation: 'stopFinder' },
  { file: 'xml/stopfinder-codingcatgirl-vrr-identified.xml', entry: 'de-vrr', format: 'xml', operation: 'stopFinder' },
  { file: 'xml/coord-ta-samuelece-sta.xml', entry: 'it-sta', format: 'xml', operation: 'coordInfo', types: ['STOP'] },
  { file: 'xml/stopfinder-ta-samuelece-sta.xml', entry: 'it-sta', format: 'xml', operation: 'stopFinder' },
  { file: 'xml/stopfinder-kpublictransport-mvv.xml', entry: 'de-mvv', format: 'xml', operation: 'stopFinder' },
  { file: 'legacy-json/coord-jlnstrk-transit-mvv.json', entry: 'de-mvv', format: 'legacy', operation: 'coordInfo', types: ['STOP'] },
  { file: 'xml/stopfinder-kpublictransport-tfi.xml', entry: 'ie-tfi', format: 'xml', operation: 'stopFinder' },
  { file: 'xml/stopfinder-kpublictransport-bwegt.xml', entry: 'de-bwegt', format: 'xml', operation: 'stopFinder' },
  { file: 'xml/stopfinder-kpublictransport-chicago.xml', entry: 'us-il-rta', format: 'xml', operation: 'stopFinder' },
  { file: 'xml/stopfinder-kpublictransport-vgn-coord.xml', entry: 'de-vgn', format: 'xml', operation: 'stopFinder' },
  { file: 'rapidjson/stopfinder-miraficent-sha-live-map-efa-api-nvbw-TRUNCATED.json', entry: 'de-nvbw', format: 'rapidjson', operation: 'stopFinder' },
  { file: 'rapidjson/coord-tfnsw-bus-point.json', entry: 'au-nsw', format: 'rapidjson', operation: 'coordInfo', types: ['BUS_POINT'] },
  { file: 'rapidjson/coord-tfnsw-poi-point.json', entry: 'au-nsw', format: 'rapidjson', operation: 'coordInfo', types: ['POI_POINT'] },
  { file: 'rapidjson/stopfinder-tfnsw-epping.json', entry: 'au-nsw', format: 'rapidjson', operation: 'stopFinder' },
];

/** The compact-XML answer (root <efa>), which no dialect reads: its stop positions, read off the text (`<c>lon,lat</c>`). */
export const COMPACT_RECORDED = { file: 'xml/stopfinder-kpublictransport-by-compact.xml', entry: 'de-bayern' } as const;

export function recordedBytes(file: string): Buffer {
  return readFileSync(`${SAMPLES_DIR}/${file}`);
}

/** The body as the client hands it to a dialect: decoded XML, or parsed JSON. */
export function recordedBody(answer: RecordedAnswer): unknown {
  const text = decodeBody(recordedBytes(answer.file), undefined);
  return answer.format === 'xml' ? decodeReply({ status: 200, headers: {}, body: text, durationMs: 1 }, { operation: answer.operation, path: '/x', secrets: [] }) : (JSON.parse(text) as unknown);
}
