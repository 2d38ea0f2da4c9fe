import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';

/**
 * libpq's connection service file (pg_service.conf), which node-postgres does not read: `PGSERVICE`
 * names a section, looked up first in the per-user file (`PGSERVICEFILE`, else ~/.pg_service.conf),
 * then in the system file (`$PGSYSCONFDIR/pg_service.conf`), as libpq does. A service's settings
 * override the PG* variables and are overridden by what a URL gives directly (libpq's order).
 * Only the parameters a URL can carry to node-postgres are taken; any other is refused by name,
 * never silently dropped (a dropped `hostaddr` or `sslrootcert` would connect somewhere else, or
 * less safely, than psql does with the same file).
 */

/** The service file's parameters efa-sync passes on, as libpq names them. */
export const SERVICE_PARAMETERS = ['host', 'port', 'dbname', 'user', 'password', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'application_name'] as const;
export type ServiceParameter = (typeof SERVICE_PARAMETERS)[number];
export type ServiceSettings = Partial<Record<ServiceParameter, string>>;

/** A service file larger than this is no service file: refused rather than read whole. */
const MAX_FILE_BYTES = 1024 * 1024;

const supported: ReadonlySet<string> = new Set(SERVICE_PARAMETERS);

/**
 * The sections of a service file's text (INI: `[name]`, `key=value`, `#` comments, blank lines);
 * a line that is none of these is an error naming the file and the line, as libpq's.
 */
export function parseServiceFile(text: string, file: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      const name = section[1]!.trim();
      current = sections.get(name) ?? new Map<string, string>();
      sections.set(name, current);
      return;
    }
    const eq = line.indexOf('=');
    if (eq <= 0 || current === undefined) throw new ConfigError(`PGSERVICE: syntax error in service file ${file}, line ${i + 1}: expected [service] or key=value`, 'PGSERVICE');
    const key = line.slice(0, eq).trim();
    // libpq takes the first value of a key in a section.
    if (!current.has(key)) current.set(key, line.slice(eq + 1).trim());
  });
  return sections;
}

function readIfPresent(file: string): string | undefined {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new ConfigError(`PGSERVICE: service file ${file} is not a regular file`, 'PGSERVICE');
    size = st.size;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error instanceof ConfigError ? error : new ConfigError(`PGSERVICE: cannot read service file ${file} (${(error as Error).message})`, 'PGSERVICE');
  }
  if (size > MAX_FILE_BYTES) throw new ConfigError(`PGSERVICE: service file ${file} is ${size} bytes, more than a service file holds (at most ${MAX_FILE_BYTES})`, 'PGSERVICE');
  return readFileSync(file, 'utf8');
}

/** The files libpq looks in for a service, in its order. */
export function serviceFiles(env: NodeJS.ProcessEnv): { readonly file: string; readonly from: string }[] {
  const files: { file: string; from: string }[] = [];
  const user = env['PGSERVICEFILE'];
  if (user !== undefined && user !== '') files.push({ file: user, from: 'PGSERVICEFILE' });
  else files.push({ file: join(env['HOME'] || homedir(), '.pg_service.conf'), from: '~/.pg_service.conf' });
  const sysconf = env['PGSYSCONFDIR'];
  // libpq's compiled-in default is its installation's etc directory; /etc/postgresql-common is where
  // Debian's and Ubuntu's libpq look, /etc where most others do.
  const systemDirs = sysconf !== undefined && sysconf !== '' ? [sysconf] : ['/etc/postgresql-common', '/etc'];
  for (const dir of systemDirs) files.push({ file: join(dir, 'pg_service.conf'), from: sysconf ? 'PGSYSCONFDIR' : 'the system service file' });
  return files;
}

/**
 * The settings of service `name`: from the first file that defines it. A service no file defines, a
 * PGSERVICEFILE that does not exist, or a parameter efa-sync cannot pass on is a ConfigError naming it.
 */
export function serviceSettings(name: string, env: NodeJS.ProcessEnv = process.env): { settings: ServiceSettings; file: string } {
  const looked: string[] = [];
  for (const { file, from } of serviceFiles(env)) {
    const text = readIfPresent(file);
    if (text === undefined) {
      if (from === 'PGSERVICEFILE') throw new ConfigError(`PGSERVICEFILE: ${file} does not exist; point it at the service file, or unset it to use ~/.pg_service.conf`, 'PGSERVICEFILE');
      looked.push(`${file} (absent)`);
      continue;
    }
    const section = parseServiceFile(text, file).get(name);
    looked.push(file);
    if (section === undefined) continue;
    const settings: ServiceSettings = {};
    for (const [key, value] of section) {
      if (!supported.has(key)) {
        throw new ConfigError(
          `PGSERVICE: service "${name}" in ${file} sets ${key}, which efa-sync cannot pass to its PostgreSQL driver (it takes ${SERVICE_PARAMETERS.join(', ')}); ` +
            'remove it from the service, or give --db postgres://… instead of PGSERVICE',
          'PGSERVICE',
        );
      }
      settings[key as ServiceParameter] = value;
    }
    return { settings, file };
  }
  throw new ConfigError(`PGSERVICE: service "${name}" is defined in none of ${looked.join(', ')}; add a [${name}] section, set PGSERVICEFILE, or unset PGSERVICE`, 'PGSERVICE');
}
