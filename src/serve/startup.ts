import { identifier, literal } from './protocol.js';
import { checkEncoding, checkSetting, cleanEncodingName } from './settings.js';

/**
 * The startup packet's parameters as PostgreSQL reads them: every parameter but user, database,
 * options and replication is a setting, and `options` holds command-line switches (`-c name=value`,
 * `--name=value`, words split on spaces, a backslash keeping the next character). Each setting is
 * applied when serve's SET allow-list allows it (settings.ts) and refused with a FATAL naming it
 * otherwise, as PostgreSQL refuses an unknown or forbidden one: never dropped silently (libpq's
 * PGOPTIONS, JDBC's `options` and `currentSchema`, Superset's `options=-csearch_path=…`).
 */

/** Settings PostgreSQL reports to the client in ParameterStatus when they change (GUC_REPORT), with the case it reports them in. */
const REPORTED = new Map(['application_name', 'client_encoding', 'DateStyle', 'IntervalStyle', 'TimeZone', 'search_path', 'standard_conforming_strings'].map((name) => [name.toLowerCase(), name] as const));

/** Startup parameters that are not settings. */
const NOT_SETTINGS = new Set(['user', 'database', 'options', 'replication']);

export type StartupSettings =
  | { readonly settings: readonly (readonly [string, string])[]; readonly reported: readonly (readonly [string, string])[] }
  | { readonly fatal: { readonly code: string; readonly text: string } };

/** PostgreSQL's pg_split_opts: words split on whitespace, a backslash taking the next character as it is. */
export function splitOptions(options: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < options.length; i++) {
    const c = options[i] as string;
    if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (c === '\\' && i + 1 < options.length) {
      word += options[++i];
      inWord = true;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** `name=value` of `-c` or `--`: PostgreSQL's ParseLongOption (dashes in the name read as underscores). */
function longOption(text: string): [string, string] | undefined {
  const at = text.indexOf('=');
  if (at <= 0) return undefined;
  return [text.slice(0, at).replaceAll('-', '_'), text.slice(at + 1)];
}

/** The settings in `options`, in order, or the switch PostgreSQL would refuse. */
function optionSettings(options: string): [string, string][] | { readonly fatal: { readonly code: string; readonly text: string } } {
  const words = splitOptions(options);
  const out: [string, string][] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    let pair: [string, string] | undefined;
    if (word === '-c') pair = longOption(words[++i] ?? '');
    else if (word.startsWith('-c')) pair = longOption(word.slice(2));
    else if (word.startsWith('--')) pair = longOption(word.slice(2));
    if (pair === undefined) {
      const shown = word === '-c' ? `-c ${words[i] ?? ''}` : word;
      return { fatal: { code: '42601', text: `invalid command-line argument for server process: ${shown.slice(0, 100)} (efa-sync serve reads -c name=value and --name=value in options)` } };
    }
    out.push(pair);
  }
  return out;
}

/**
 * Settings PostgreSQL has but pg_settings does not list (GUC_NO_SHOW_ALL): `-c role=postgres` must be
 * refused as a permission, like PostgreSQL refuses it to a reader, not called unknown.
 */
const HIDDEN_SETTINGS = new Set(['role', 'session_authorization', 'seed']);

/**
 * What a client's startup parameters set, checked: `known` holds the setting names the engine has
 * (lower case), `write` is serve's --write. Later parameters win over earlier ones and over `options`,
 * as in PostgreSQL.
 */
export function startupSettings(params: ReadonlyMap<string, string>, known: ReadonlySet<string>, write: boolean): StartupSettings {
  const replication = params.get('replication');
  if (replication !== undefined && !/^(false|off|no|0)$/i.test(replication.trim())) {
    return { fatal: { code: '42501', text: 'efa-sync serve: replication connections are not served' } };
  }
  const fromOptions = optionSettings(params.get('options') ?? '');
  if ('fatal' in fromOptions) return fromOptions;
  const given = [...fromOptions, ...[...params].filter(([name]) => !NOT_SETTINGS.has(name) && !name.startsWith('_pq_.'))];
  const settings = new Map<string, string>();
  for (const [rawName, rawValue] of given) {
    const name = rawName.toLowerCase();
    if (!known.has(name) && !HIDDEN_SETTINGS.has(name)) return { fatal: { code: '42704', text: `unrecognized configuration parameter "${rawName.slice(0, 100)}"` } };
    let value = rawValue;
    if (name === 'client_encoding') {
      const refused = checkEncoding(value);
      if (refused !== undefined) return { fatal: { code: '0A000', text: `efa-sync serve: ${refused}; set PGCLIENTENCODING=UTF8 (or the client's encoding setting)` } };
      value = cleanEncodingName(value) === 'sqlascii' ? 'SQL_ASCII' : 'UTF8';
    }
    const refused = checkSetting({ kind: 'VAR_SET_VALUE', name, args: [{ A_Const: { sval: { sval: value } } }] }, write);
    if (refused !== undefined) return { fatal: { code: '42501', text: `permission denied to set parameter "${rawName.slice(0, 100)}": ${refused}` } };
    settings.set(name, value);
  }
  const applied = [...settings].map(([name, value]) => [REPORTED.get(name) ?? name, value] as const);
  return { settings: applied, reported: applied.filter(([name]) => REPORTED.has(name.toLowerCase())) };
}

/** Settings whose value is a list of names (GUC_LIST_QUOTE): a startup value is split as PostgreSQL's SplitIdentifierString splits it. */
const NAME_LISTS = new Set(['search_path']);

/** The names of a list such as 'efa, "My Schema"': unquoted ones in lower case, quoted ones as written. */
function splitNames(value: string): string[] {
  const names: string[] = [];
  const pattern = /\s*(?:"((?:[^"]|"")*)"|([^,]*?))\s*(?:,|$)/gy;
  for (let match = pattern.exec(value); match !== null && pattern.lastIndex <= value.length; match = pattern.exec(value)) {
    names.push(match[1] !== undefined ? match[1].replaceAll('""', '"') : (match[2] ?? '').toLowerCase());
    if (pattern.lastIndex >= value.length) break;
  }
  return names.filter((name) => name !== '');
}

/**
 * The SET statement that gives a setting the value a startup packet gives it: the value as one
 * string, or, for a list of names, each name as its own element (SET search_path = 'efa,public' would
 * name one schema "efa,public"). The client role runs it (set_config is revoked from it).
 */
export function startupSet(name: string, value: string): string {
  const values = NAME_LISTS.has(name.toLowerCase()) ? splitNames(value) : [value];
  return `SET ${identifier(name)} = ${values.length === 0 ? "''" : values.map(literal).join(', ')}`;
}
