import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OPTION_ENV } from '../../src/cli/common.js';
import { runCli } from '../helpers/cli.js';

/** One option of a command as its --help lists it. */
export interface CliOption {
  readonly flags: readonly string[];
  /** Takes a value (`--db <url>`). */
  readonly takesValue: boolean;
  /** Allowed values, when the help lists choices. */
  readonly choices: readonly string[] | undefined;
}

export interface CliSurface {
  readonly commands: ReadonlySet<string>;
  /** A command's options; `command` may name a subcommand too (`history prune`). */
  options(command: string): Promise<readonly CliOption[]>;
  /** The subcommands a command groups (`history` → `prune`), empty for most. */
  subcommands(command: string): Promise<ReadonlySet<string>>;
}

/** Splits the Options (or Commands) block of commander's help into entries, joining wrapped lines. */
function helpEntries(help: string, section: 'Options' | 'Commands'): string[] {
  const start = help.indexOf(`${section}:\n`);
  if (start < 0) return [];
  const lines = help.slice(start + section.length + 2).split('\n');
  const entries: string[] = [];
  for (const line of lines) {
    if (/^\S/.test(line) || line.trim() === '') break;
    if (/^ {2}\S/.test(line)) entries.push(line.trim());
    else if (entries.length > 0) entries[entries.length - 1] += ` ${line.trim()}`;
  }
  return entries;
}

function parseOption(entry: string): CliOption {
  const [spec = ''] = entry.split(/\s{2,}/);
  const flags = spec.split(/,\s*/).map((f) => f.split(' ')[0] ?? '').filter((f) => f.startsWith('-'));
  const choices = /\(choices: ([^)]*)\)/.exec(entry)?.[1]?.match(/"([^"]*)"/g)?.map((c) => c.slice(1, -1));
  return { flags, takesValue: /[<[]/.test(spec), choices };
}

/** What the real CLI offers, read from its --help (so a command or flag that is not registered is absent). */
export async function readCliSurface(): Promise<CliSurface> {
  const top = await runCli(['--help']);
  if (top.code !== 0) throw new Error(`efa-sync --help failed: ${top.stderr}`);
  const commands = new Set(helpEntries(top.stdout, 'Commands').map((e) => e.split(' ')[0] ?? ''));
  const cache = new Map<string, Promise<string>>();
  const help = (command: string): Promise<string> => {
    let found = cache.get(command);
    if (!found) {
      found = runCli([...command.split(' '), '--help']).then((r) => {
        if (r.code !== 0) throw new Error(`efa-sync ${command} --help failed: ${r.stderr}`);
        return r.stdout;
      });
      cache.set(command, found);
    }
    return found;
  };
  return {
    commands,
    options: async (command) => helpEntries(await help(command), 'Options').map(parseOption),
    subcommands: async (command) => new Set(helpEntries(await help(command), 'Commands').map((e) => e.split(' ')[0] ?? '').filter((c) => c !== 'help')),
  };
}

/** Problems of one efa-sync argument vector against the CLI: unknown command, unknown flag, bad choice. */
export async function argvProblems(cli: CliSurface, argv: readonly string[]): Promise<string[]> {
  const [top, ...args] = argv;
  if (top === undefined || top === '--help' || top === '--version') return [];
  if (!cli.commands.has(top)) return [`unknown command "${top}"`];
  const subs = await cli.subcommands(top);
  const sub = args[0] !== undefined && subs.has(args[0]) ? args[0] : undefined;
  if (subs.size > 0 && sub === undefined && args[0] !== undefined && !args[0].startsWith('-')) return [`efa-sync ${top}: unknown command "${args[0]}"`];
  const command = sub === undefined ? top : `${top} ${sub}`;
  const rest = sub === undefined ? args : args.slice(1);
  const options = await cli.options(command);
  const problems: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    if (!arg.startsWith('-')) continue;
    const [flag = '', inline] = arg.split('=', 2);
    const option = options.find((o) => o.flags.includes(flag));
    if (!option) {
      problems.push(`efa-sync ${command}: unknown option ${flag}`);
      continue;
    }
    if (!option.takesValue) continue;
    const value = inline ?? rest[++i];
    if (value === undefined) problems.push(`efa-sync ${command}: ${flag} needs a value`);
    else if (option.choices && !value.startsWith('$') && !option.choices.includes(value)) {
      problems.push(`efa-sync ${command}: ${flag} ${value} is not one of ${option.choices.join(', ')}`);
    }
  }
  return problems;
}

/**
 * The environment variables efa-sync itself reads (`env['X']` in src/, and the common options'
 * variables, which commander reads through `Option.env`), plus those its libraries read: Node's
 * NODE_ENV and the libpq variables `pg` honours.
 */
export async function environmentVariablesRead(srcDir: string): Promise<Set<string>> {
  const names = new Set<string>(['NODE_ENV', 'PGHOST', 'PGPORT', 'PGUSER', 'PGPASSWORD', 'PGDATABASE', 'PGSSLMODE', 'PGAPPNAME', ...Object.values(OPTION_ENV)]);
  const files = (await readdir(srcDir, { recursive: true })).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const text = await readFile(join(srcDir, file), 'utf8');
    for (const m of text.matchAll(/env\[['"]([A-Z_][A-Z0-9_]*)['"]\]|process\.env\.([A-Z_][A-Z0-9_]*)/g)) names.add(m[1] ?? m[2] ?? '');
    // The variables behind options (OPTION_ENV in src/cli/common.ts), which commander's Option.env() reads.
    for (const m of text.matchAll(/^\s+\w+: '(EFA_[A-Z0-9_]+)',$/gm)) names.add(m[1] ?? '');
  }
  return names;
}

/** Splits a shell command line into words (quotes respected; enough for the lines of these templates). */
export function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

/**
 * The efa-sync arguments of a command line that runs it (`efa-sync …`, `npx efa-sync …`, `node …/main.js …`,
 * `docker run … efa-sync:tag …`, `docker compose run efa-sync …`). Lines that only name the image or a
 * Kubernetes object called efa-sync (`docker build -t`, `kubectl …`) run no efa-sync command: undefined.
 */
export function efaSyncArgv(line: string): string[] | undefined {
  const words = shellWords(line);
  if (words[0] === 'kubectl' || (words[0] === 'docker' && words[1] === 'build')) return undefined;
  // The bin, the built entry point, or the image (`docker run … efa-sync:0.1.0 run …`, whose entrypoint is efa-sync).
  const at = words.findIndex((w) => /^([\w.-]+\/)*efa-sync(:[\w.-]+)?$/.test(w) || /(^|\/)dist\/src\/cli\/main\.js$/.test(w));
  if (at < 0) return undefined;
  const argv: string[] = [];
  for (const w of words.slice(at + 1)) {
    if (['>>', '>', '2>&1', '|', '&&', ';', '#'].includes(w) || w.startsWith('>>')) break;
    argv.push(w);
  }
  return argv;
}
