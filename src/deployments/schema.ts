import { z } from 'zod';
import { DIALECT_NAMES } from '../efa/dialects/index.js';
import { OPERATIONS } from '../efa/operations.js';
import { headersSchema, polygonSchema } from '../job/schema.js';
import { isTimeZone } from '../util/time-zone.js';

/**
 * One entry of the catalogue of public EFA deployments (deployments/<id>.json). Data, not code: every
 * fact an entry states names where it was read (`sources`), so a reader can check it and an editor
 * can correct it. Strict like the job schema: a misspelt key is an error, not a silently missing fact.
 */

/** The output formats an operation is known to answer in: full or compact XML, legacy JSON (outputFormat=JSON), rapidJSON. */
export const DEPLOYMENT_FORMATS = ['xml-full', 'xml-compact', 'legacy-json', 'rapidjson'] as const;

/**
 * Where a fact was read: a repository at a commit and a path (`owner/name@<40 hex>:path`, a note in
 * brackets may follow), a recorded answer, the project's own policy, a computation, or a hand-drawn
 * approximation that says it is one.
 */
export const sourceRefSchema = z
  .string()
  .regex(
    /^([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+@[0-9a-f]{40}:\S+( \S.*)?|read from a recorded answer: \S.*|efa-sync policy: \S.*|computed: \S.*|approximation: \S.*)$/,
    'a source is "owner/repo@<commit>:path", "read from a recorded answer: …", "efa-sync policy: …", "computed: …" or "approximation: …"',
  );

/** A base URL as efa-sync writes it: http(s), lower-case host, a trailing slash, no query, no fragment, no credentials. */
export function isNormalisedBaseUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return /^https?:$/.test(url.protocol) && url.href === text && text.endsWith('/') && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
}

const baseUrlSchema = z.string().refine(isNormalisedBaseUrl, 'a normalised base URL: http(s)://host/path/ with a trailing slash, no query, no fragment');

const endpointSchema = z.strictObject({
  url: baseUrlSchema.describe('A base URL a source names for this deployment.'),
  source: sourceRefSchema.describe('Where this URL was read.'),
  seen: z.string().regex(/^\d{4}(-\d{2}(-\d{2})?)?$/, 'a date: YYYY, YYYY-MM or YYYY-MM-DD').optional().describe("When the source said so: the source commit's date, or the recorded answer's."),
});

/** The keys of an entry that state a fact, each of which must name its source. */
export const FACT_KEYS = [
  'name', 'countries', 'regions', 'baseUrl', 'endpoints', 'dialect', 'operations', 'paths', 'headers', 'timeZone', 'globalIds',
  'languages', 'dataLicence', 'termsUrl', 'rateLimit', 'notes', 'coverage',
] as const;
export type FactKey = (typeof FACT_KEYS)[number];

export const deploymentSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema an editor checks this file against; efa-sync ignores it.'),
    id: z.string().regex(/^[a-z]{2}-[a-z0-9]+(-[a-z0-9]+)*$/, 'id: <iso country>-<name>, lower case, e.g. de-vvs').max(63).describe('Stable id: the country code and a short name (de-vvs). A job names it in `deployment`; never renamed.'),
    name: z.string().min(1).describe("The network's or operator's name."),
    countries: z.array(z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code')).min(1).describe('ISO 3166-1 countries it covers.'),
    regions: z.array(z.string().regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/, 'an ISO 3166-2 code such as DE-BW')).optional().describe('ISO 3166-2 subdivisions it covers.'),
    baseUrl: baseUrlSchema.describe('The base URL efa-sync uses: the part before XML_COORD_REQUEST.'),
    endpointChoice: z.string().optional().describe('Why baseUrl is the one chosen where sources disagree.'),
    endpoints: z.array(endpointSchema).min(1).describe('Every base URL a source names, with its source and date (endpoints move).'),
    dialect: z.enum(DIALECT_NAMES).describe("The dialect a job of this deployment uses (the job key `dialect`)."),
    operations: z.partialRecord(z.enum(OPERATIONS), z.array(z.enum(DEPLOYMENT_FORMATS)).min(1)).describe('Operations known to answer, and in which output formats.'),
    paths: z.partialRecord(z.enum(OPERATIONS), z.string().min(1)).optional().describe('Paths of operations that are not the EFA names (a gateway, XSLT_ requests): the job key `paths`.'),
    headers: headersSchema.optional().describe('Headers every request needs (a credential only as { "env": … }): the job key `headers`.'),
    timeZone: z.string().refine(isTimeZone, 'an IANA time zone name').describe('IANA time zone of its local times: the job key `timeZone`.'),
    globalIds: z.enum(['DHID', 'IFOPT']).optional().describe('The global stop-id scheme its answers carry.'),
    languages: z.array(z.string().min(2)).optional().describe('Languages it answers in.'),
    dataLicence: z.string().optional().describe("The licence of the deployment's data, where one is published."),
    termsUrl: z.url({ protocol: /^https?$/ }).optional().describe("The operator's terms of use."),
    rateLimit: z
      .strictObject({ requestsPerSecond: z.number().positive().max(50), concurrency: z.number().int().positive().max(16) })
      .describe('A polite default rate: the job key `rateLimit`.'),
    notes: z.array(z.string().min(1)).optional().describe('Known quirks, in words.'),
    coverage: polygonSchema.describe('The area it answers for: a simple polygon, [lon, lat].'),
    sources: z.partialRecord(z.enum(FACT_KEYS), z.array(sourceRefSchema).min(1)).describe('For each fact key, where it was read.'),
  })
  .superRefine((entry, ctx) => {
    for (const key of FACT_KEYS) {
      const stated = entry[key] !== undefined;
      const sourced = entry.sources[key] !== undefined;
      if (stated && !sourced) ctx.addIssue({ code: 'custom', path: ['sources', key], message: `${key} is stated but has no source` });
      if (!stated && sourced) ctx.addIssue({ code: 'custom', path: ['sources', key], message: `sources.${key} names a source for a fact the entry does not state` });
    }
    if (!entry.endpoints.some((e) => e.url === entry.baseUrl)) {
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'baseUrl must be one of endpoints[].url (where it was read)' });
    }
    const distinct = new Set(entry.endpoints.map((e) => e.url));
    if (distinct.size > 1 && entry.endpointChoice === undefined) {
      ctx.addIssue({ code: 'custom', path: ['endpointChoice'], message: 'sources name different endpoints: say which one baseUrl is and why' });
    }
  });

/** A catalogue entry as its file says it. */
export type Deployment = z.output<typeof deploymentSchema>;
