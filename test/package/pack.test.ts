import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';

/**
 * The package as a user gets it: `npm pack`, installed from the tarball into a project outside the
 * repository, a TS job there importing `defineJob` from 'efa-sync', type-checked against the shipped
 * declarations and run with the installed bin against the simulator.
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface PackedFile {
  path: string;
  mode: number;
}

describe('the packed package, installed outside the repository', () => {
  let dir: string;
  let project: string;
  let tarball: string;
  let files: PackedFile[];
  let sim: Simulator;

  beforeAll(async () => {
    if (!existsSync(join(root, 'dist/src/index.js'))) throw new Error('dist/ is missing: npm run build (npm install runs it)');
    dir = await mkdtemp(join(tmpdir(), 'efa-sync-pack-'));
    // --ignore-scripts: the build already ran (npm install's prepare); packing must not rebuild under the tests.
    const packed = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root, maxBuffer: 32 * 1024 * 1024 });
    const [info] = JSON.parse(packed.stdout) as [{ filename: string; files: PackedFile[] }];
    tarball = join(dir, info.filename);
    files = info.files;
    project = join(dir, 'my-project');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'my-efa-jobs', private: true, type: 'module' }));
    // From the npm cache where it has the packages (CI filled it with npm ci), from the registry otherwise.
    // Without the optional better-sqlite3 (GeoPackage export only): its native build takes minutes where
    // no prebuilt binary can be fetched, and every other command must work without it.
    await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--omit=dev', '--omit=optional', tarball], { cwd: project, timeout: 280_000 });
    sim = await startSimulator({ port: 0, seed: 2, size: 300 });
  }, 300_000);

  afterAll(async () => {
    await sim?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('holds the built code with its declarations, the executable bin, sql/, jobs/ and the job schema, and no sources or tests', () => {
    const paths = files.map((f) => f.path);
    for (const needed of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/job/schema.d.ts', 'dist/src/cli/main.js', 'sql/001_schema.sql', 'jobs/demo.json', 'schema/job.schema.json', 'schema/deployment.schema.json', 'deployments/de-vvs.json', 'package.json', 'README.md']) {
      expect(paths).toContain(needed);
    }
    expect(paths.filter((p) => /^(src|test|bench|scripts)\//.test(p) || p.startsWith('dist/bench/') || p.startsWith('dist/test/'))).toEqual([]);
    expect((files.find((f) => f.path === 'dist/src/cli/main.js')?.mode ?? 0) & 0o111).toBe(0o111);
  });

  it('installs a bin that runs, and resolves the job schema by its export', async () => {
    const bin = join(project, 'node_modules/.bin/efa-sync');
    expect(((await stat(bin)).mode & 0o111) !== 0).toBe(true);
    const help = await run(bin, ['--help'], { cwd: project });
    expect(help.stdout).toMatch(/Usage: efa-sync/);
    const schema = createRequire(join(project, 'index.js')).resolve('efa-sync/job.schema.json');
    expect(existsSync(schema)).toBe(true);
  });

  it('type-checks and runs a TS job that imports defineJob from efa-sync', async () => {
    const [minLon, minLat, maxLon, maxLat] = sim.world.bbox;
    await writeFile(
      join(project, 'my-job.ts'),
      [
        "import { defineJob, type JobInput } from 'efa-sync';",
        '',
        'const sweeps: JobInput["sweeps"] = { coord: { types: ["STOP"], maxPerRequest: 400 }, addInfo: { publicationStatus: "current" } };',
        'export default defineJob({',
        '  name: "packed-job",',
        '  baseUrl: "http://127.0.0.1:9/efa",',
        `  region: { bbox: [${minLon}, ${minLat}, ${maxLon}, ${maxLat}] },`,
        '  rateLimit: { requestsPerSecond: 200, concurrency: 4 },',
        '  sweeps,',
        '});',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ['my-job.ts'] }),
    );
    // The shipped declarations are complete: strict tsc over the job and every .d.ts it reaches.
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', project], { cwd: project }).then(
      () => '',
      (e: { stdout?: string }) => e.stdout ?? 'tsc failed',
    );
    expect(checked).toBe('');

    const bin = join(project, 'node_modules/.bin/efa-sync');
    const result = await run(bin, ['run', './my-job.ts', '--db', `pglite:${join(project, 'db')}`, '--base-url', sim.url, '--json', '--log-format', 'json'], {
      cwd: project,
      timeout: 200_000,
      maxBuffer: 32 * 1024 * 1024,
    });
    const summary = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as { status: string; job: string; exitCode: number; stats: Record<string, { inserted?: number }> };
    expect(summary).toMatchObject({ status: 'succeeded', job: 'packed-job', exitCode: 0 });
    expect(summary.stats['pins']?.inserted).toBeGreaterThan(0);
  }, 240_000);
});
