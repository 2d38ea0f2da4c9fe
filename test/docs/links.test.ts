import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerDb } from '../../src/cli/db-copy.js';
import { registerDemo } from '../../src/cli/demo.js';
import { registerDoctor } from '../../src/cli/doctor.js';
import { registerExport } from '../../src/cli/export.js';
import { registerGrantReader } from '../../src/cli/grant-reader.js';
import { registerHistory } from '../../src/cli/history.js';
import { registerLookup } from '../../src/cli/lookup.js';
import { registerMigrate } from '../../src/cli/migrate.js';
import { registerPlan } from '../../src/cli/plan.js';
import { registerReport } from '../../src/cli/report.js';
import { registerDeployments } from '../../src/cli/deployments.js';
import { registerInit } from '../../src/cli/init.js';
import { registerRun } from '../../src/cli/run.js';
import { registerRuns } from '../../src/cli/runs.js';
import { registerServe } from '../../src/cli/serve.js';
import { registerSim } from '../../src/cli/sim.js';
import { argvProblems, efaSyncArgv, type CliOption, type CliSurface } from '../deploy/cli-surface.js';
import { headingAnchors, inlineCode, linkTargets, readDocs, splitFences, tableRows, type MarkdownFile } from './markdown.js';

/**
 * The docs name files, commands and options; each of them must exist, so a rename or a deleted file
 * shows here instead of in a reader's failed copy-paste (the README once named `sweep/trust.ts` long
 * after it was gone). No database and no process: the CLI is the commander program itself, built
 * in memory from the same register functions src/cli/program.ts calls.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

/** The program as src/cli/program.ts builds it (a command added there and not here fails the docs that name it). */
function buildProgram(): Command {
  const program = new Command('efa-sync');
  for (const register of [registerRun, registerPlan, registerMigrate, registerRuns, registerSim, registerLookup, registerReport, registerGrantReader, registerServe, registerDoctor, registerExport, registerDemo, registerHistory, registerDeployments, registerInit, registerDb]) register(program);
  return program;
}

/** Every command path (`run`, `history prune`) and every long flag any command takes. */
function cliSurface(program: Command): { commands: Set<string>; flags: Set<string> } {
  const commands = new Set<string>();
  const flags = new Set<string>(['--help', '--version']);
  const walk = (cmd: Command, prefix: string): void => {
    for (const sub of cmd.commands) {
      const path = prefix === '' ? sub.name() : `${prefix} ${sub.name()}`;
      commands.add(path);
      for (const option of sub.options) if (option.long) flags.add(option.long);
      walk(sub, path);
    }
  };
  walk(program, '');
  return { commands, flags };
}

/**
 * The same surface test/deploy's checks read from `--help`, read from the program in memory instead, so
 * every efa-sync line of every doc is held to the CLI (command, flags, a flag's value and its choices)
 * without a process per command.
 */
function inMemorySurface(program: Command): CliSurface {
  const find = (path: string): Command | undefined => {
    let cmd: Command | undefined = program;
    for (const name of path.split(' ')) cmd = cmd?.commands.find((c) => c.name() === name);
    return cmd;
  };
  const help: CliOption = { flags: ['-h', '--help'], takesValue: false, choices: undefined };
  return {
    commands: new Set(program.commands.map((c) => c.name())),
    options: async (command) => [
      help,
      ...(find(command)?.options ?? []).map((o) => ({ flags: [o.short, o.long].filter((f): f is string => f !== undefined), takesValue: o.required || o.optional, choices: o.argChoices })),
    ],
    subcommands: async (command) => new Set((find(command)?.commands ?? []).map((c) => c.name())),
  };
}

/**
 * Flags the docs name that belong to other programs, in tables or prose about them. Each says whose it is.
 * Lines of code blocks that run another program are not checked at all (only efa-sync's own arguments are).
 */
const NOT_OURS = new Set([
  '--heap-growing-percent', // node's V8 flag (benchmarks: trading memory back for speed)
  '--import', // node --import tsx
  '--only', // npm run bench -- --only <bench>: the bench runner's, not the CLI's
  '--list', // npm run bench -- --list
  '--check', // npm run docs:schema -- --check and the other generators
  '--nodedir', // npm rebuild … --nodedir
  '--config', // ogrinfo --config PGSQL_OGR_FID fid
  '--exit-code-from', // docker compose up
  '--build', // docker compose up --build
  '--rm', // docker run --rm
  '--prefix', // npm install --prefix
]);

/** Top-level folders and files of the repository, and the folders of src/ (architecture.md writes `run/lifecycle.ts`). */
const topLevel = new Set(readdirSync(root));
const srcFolders = new Set(readdirSync(join(root, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name));

/**
 * The repository path an inline code span names, or undefined when it names none: a path starts with a
 * folder of the repository (`sql/014_history.sql`, `test/db/`) or of src/ (`run/lifecycle.ts`). Spans with
 * placeholders (`src/relations/<name>.ts`), globs, URLs or built output (dist/, made by `npm run build`) name
 * no file to check.
 */
function repositoryPath(span: string): string | undefined {
  const path = span.replace(/[.,:;]$/, '').replace(/#.*$/, '');
  if (!/^\.?[\w-]+\/[\w./-]*$/.test(path) || path.includes('//')) return undefined;
  const first = path.split('/')[0] ?? '';
  if (first === 'dist' || first === 'node_modules') return undefined;
  if (first === 'src' || (topLevel.has(first) && first !== 'package.json')) return path;
  if (srcFolders.has(first)) return `src/${path}`;
  return undefined;
}

let docs: MarkdownFile[];
let surface: ReturnType<typeof cliSurface>;
beforeAll(async () => {
  docs = await readDocs(root);
  surface = cliSurface(buildProgram());
});

describe('what the docs name exists', () => {
  it('reads the README and docs/ (the walk finds them)', () => {
    expect(docs.map((d) => d.path)).toEqual(expect.arrayContaining(['README.md', 'docs/jobs.md', 'docs/operations/exit-codes.md', 'docs/deploy/README.md']));
    expect([...surface.commands]).toEqual(expect.arrayContaining(['run', 'serve', 'export', 'history prune']));
  });

  it('every relative link leads to a file, and every #anchor to a heading in it', () => {
    const broken: string[] = [];
    for (const doc of docs) {
      for (const target of linkTargets(doc.text)) {
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const [file = '', anchor] = target.split('#');
        const path = file === '' ? doc.path : normalize(join(dirname(doc.path), decodeURIComponent(file)));
        if (!existsSync(join(root, path))) {
          broken.push(`${doc.path}: ${target} (no ${path})`);
          continue;
        }
        if (anchor === undefined || !path.endsWith('.md')) continue;
        const text = path === doc.path ? doc.text : (docs.find((d) => d.path === path)?.text ?? '');
        if (!headingAnchors(text).has(anchor)) broken.push(`${doc.path}: ${target} (no heading #${anchor} in ${path})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every repository path in inline code exists', () => {
    const missing: string[] = [];
    for (const doc of docs) {
      if (doc.path === 'docs/schema.md') continue; // generated from the database's comments, checked by npm run docs:schema -- --check
      for (const span of inlineCode(doc.text)) {
        const path = repositoryPath(span);
        if (path !== undefined && !existsSync(join(root, path))) missing.push(`${doc.path}: \`${span}\``);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every efa-sync command named in code exists', () => {
    const unknown: string[] = [];
    for (const doc of docs) {
      const { codeLines } = splitFences(doc.text);
      for (const line of [...codeLines, ...inlineCode(doc.text)]) {
        for (const m of line.matchAll(/(?:^|[\s`(])efa-sync\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?/g)) {
          const [command = '', sub] = [m[1], m[2]];
          if (!surface.commands.has(command)) unknown.push(`${doc.path}: efa-sync ${command}`);
          else if (sub !== undefined && [...surface.commands].some((c) => c.startsWith(`${command} `)) && !surface.commands.has(`${command} ${sub}`)) {
            unknown.push(`${doc.path}: efa-sync ${command} ${sub}`);
          }
        }
      }
    }
    expect(unknown).toEqual([]);
  });

  it('every efa-sync command line in a code block is one the CLI takes (command, flags, values, choices)', async () => {
    const cli = inMemorySurface(buildProgram());
    const problems: string[] = [];
    let checked = 0;
    for (const doc of docs) {
      for (const line of splitFences(doc.text).codeLines) {
        // Only lines that run efa-sync: psql, docker or npm lines carry flags of their own programs. The
        // README's command table is a code block too: its placeholders (`<job>`, `[--where …]`) are not values.
        const argv = efaSyncArgv(line);
        if (!argv || argv.length === 0 || line.trimStart().startsWith('#') || /[<[]/.test(line)) continue;
        checked++;
        for (const p of await argvProblems(cli, argv)) problems.push(`${doc.path}: ${p}`);
      }
    }
    expect(checked, 'efa-sync lines found in the docs').toBeGreaterThan(30);
    expect(problems).toEqual([]);
  });

  it('every --option named in a code block or a table exists on some command', () => {
    const unknown: string[] = [];
    const check = (where: string, flag: string): void => {
      if (!surface.flags.has(flag) && !NOT_OURS.has(flag)) unknown.push(`${where}: ${flag}`);
    };
    for (const doc of docs) {
      for (const line of splitFences(doc.text).codeLines) {
        for (const word of efaSyncArgv(line) ?? []) {
          const flag = /^--[a-z][a-z0-9-]*[a-z0-9]/.exec(word)?.[0];
          if (flag !== undefined) check(doc.path, flag);
        }
      }
      // `--log-*` names a family of flags, not one: a name must end in a letter or digit to be checked.
      for (const row of tableRows(doc.text)) for (const m of row.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9])(?![\w*-])/g)) check(doc.path, m[1] ?? '');
    }
    expect(unknown).toEqual([]);
  });

  it('names a missing file, a bad anchor and an unknown flag (the checks can fail)', () => {
    expect(repositoryPath('sweep/trust.ts')).toBe('src/sweep/trust.ts');
    expect(existsSync(join(root, 'src/sweep/trust.ts'))).toBe(false);
    expect(repositoryPath('vrr_client/schema')).toBeUndefined();
    expect(repositoryPath('src/relations/<name>.ts')).toBeUndefined();
    expect(headingAnchors('# A title\n## Night one (`--only worlds`)\n## A title').has('night-one---only-worlds')).toBe(true);
    expect(headingAnchors('# A title\n# A title')).toEqual(new Set(['a-title', 'a-title-1']));
    expect(surface.flags.has('--metrics-dir')).toBe(false);
    expect(surface.flags.has('--metrics-file')).toBe(true);
  });

  it('holds a command line to its command: an unknown flag, a bad choice, a missing value', async () => {
    const cli = inMemorySurface(buildProgram());
    expect(await argvProblems(cli, ['run', 'demo', '--metrics-dir', '/m', '--log-format', 'xml'])).toEqual([
      'efa-sync run: unknown option --metrics-dir',
      'efa-sync run: --log-format xml is not one of pretty, json',
    ]);
    expect(await argvProblems(cli, ['history', 'prune', '--before'])).toEqual(['efa-sync history prune: --before needs a value']);
    expect(await argvProblems(cli, ['export', '--relation', 'current_stops', '--format', 'gpkg', '--out', 's.gpkg'])).toEqual([]);
  });

  it("README's links stay inside what npm pack ships (package.json files)", async () => {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { files: string[] };
    const shipped = (path: string): boolean => ['README.md', 'package.json', 'LICENSE'].includes(path) || pkg.files.some((f) => path === f || path.startsWith(`${f}/`));
    const readme = docs.find((d) => d.path === 'README.md')?.text ?? '';
    const outside = linkTargets(readme)
      .filter((t) => !/^[a-z]+:/i.test(t) && !t.startsWith('#'))
      .map((t) => normalize(t.split('#')[0] ?? '').replace(/\/$/, ''))
      .filter((p) => !shipped(p));
    expect(outside).toEqual([]);
  });
});
