import { describe, expect, it } from 'vitest';
import { checkEncoding, cleanEncodingName } from '../../src/serve/settings.js';
import { startupSettings } from '../../src/serve/startup.js';

/** Issue 53.3: an encoding name is cleaned once (settings.ts), as PostgreSQL's clean_encoding_name cleans it, for SET and startup alike. */
describe('serve: client encoding names', () => {
  it('cleans a name as PostgreSQL does: letters and digits only, lower case', () => {
    expect(["'utf-8'", 'utf-8', 'UTF8', 'utf_8', ' Utf 8 '].map(cleanEncodingName)).toEqual(['utf8', 'utf8', 'utf8', 'utf8', 'utf8']);
    expect(cleanEncodingName('SQL_ASCII')).toBe('sqlascii');
  });

  it('accepts every spelling of UTF8 and SQL_ASCII, and refuses what PGlite cannot convert', () => {
    for (const name of ["'utf-8'", 'utf-8', 'UTF8', 'utf_8', 'unicode', 'sql_ascii']) expect(checkEncoding(name), name).toBeUndefined();
    for (const name of ['LATIN1', 'sjis', "'euc-jp'"]) expect(checkEncoding(name), name).toMatch(/is not supported/);
  });

  it('gives a startup client_encoding its PostgreSQL name, whatever the spelling', () => {
    const known = new Set(['client_encoding']);
    for (const [given, applied] of [["'utf-8'", 'UTF8'], ['utf_8', 'UTF8'], ['Sql-Ascii', 'SQL_ASCII']] as const) {
      const result = startupSettings(new Map([['client_encoding', given]]), known, false);
      expect(result, given).toEqual({ settings: [['client_encoding', applied]], reported: [['client_encoding', applied]] });
    }
    const refused = startupSettings(new Map([['client_encoding', 'latin-1']]), known, false);
    expect('fatal' in refused && refused.fatal.code).toBe('0A000');
  });
});
