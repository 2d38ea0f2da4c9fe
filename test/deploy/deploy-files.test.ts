import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { validateJob } from '../../src/job/index.js';
import { argvProblems, efaSyncArgv, environmentVariablesRead, readCliSurface, type CliSurface } from './cli-surface.js';

/**
 * No Docker engine or cluster runs where the tests do, so the deployment files are checked as text:
 * linted, parsed, and every efa-sync command, flag and environment variable they use is compared with
 * what the CLI offers and the code reads, so the templates cannot drift from the program again.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string): Promise<string> => readFile(join(root, path), 'utf8');
/** The operator documentation whose code blocks are commands to copy. */
const deployDocs = ['docs/deploy/README.md', 'docs/deploy/cron.md', 'docs/deploy/snapshots.md', 'docs/deploy/container.md', 'docs/deploy/operations.md', 'docs/deploy/many-deployments.md', 'docs/deploy/orchestrators.md', 'README.md'];

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string> | string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}
interface Compose {
  services: Record<string, ComposeService>;
}

interface K8sContainer {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; runAsNonRoot?: boolean };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface K8sPodSpec {
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; fsGroup?: number };
  containers: K8sContainer[];
  volumes?: { name: string; emptyDir?: unknown; hostPath?: unknown; configMap?: unknown }[];
}
interface K8sDoc {
  kind: string;
  data?: Record<string, string>;
  spec?: { jobTemplate?: { spec: { template: { spec: K8sPodSpec } } } };
}

function environmentOf(service: ComposeService): Record<string, string> {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(env.map((e) => [e.split('=')[0] ?? '', e.slice(e.indexOf('=') + 1)]));
}

/** Compose's `${VAR:-default}` as compose resolves it with VAR unset. */
const withDefaults = (value: string): string => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

/** Lines inside fenced code blocks of a Markdown file. */
function codeLines(markdown: string): string[] {
  const out: string[] = [];
  let inside = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inside = !inside;
    else if (inside) out.push(line);
  }
  return out;
}

function stages(instructions: readonly Instruction[]): Instruction[][] {
  const out: Instruction[][] = [];
  for (const i of instructions) {
    if (i.getKeyword() === 'FROM') out.push([]);
    out[out.length - 1]?.push(i);
  }
  return out;
}

/** An exec-form instruction's JSON array (ENTRYPOINT ["node", "…"]). */
const execForm = (i: Instruction | undefined): string[] => (i ? (JSON.parse(i.getRawArgumentsContent() ?? '[]') as string[]) : []);

describe('deployment files against the CLI', () => {
  let cli: CliSurface;
  let envRead: Set<string>;
  let dockerfile: string;
  let compose: Compose;
  let k8s: K8sDoc[];
  let cronJobPod: K8sPodSpec;

  beforeAll(async () => {
    cli = await readCliSurface();
    envRead = await environmentVariablesRead(join(root, 'src'));
    dockerfile = await read('Dockerfile');
    compose = parseYaml(await read('docker-compose.yml')) as Compose;
    const docs = parseAllDocuments(await read('docs/deploy/cronjob.yaml'));
    for (const d of docs) expect(d.errors).toEqual([]);
    k8s = docs.map((d) => d.toJS() as K8sDoc);
    const cron = k8s.find((d) => d.kind === 'CronJob')?.spec?.jobTemplate?.spec.template.spec;
    if (!cron) throw new Error('docs/deploy/cronjob.yaml has no CronJob');
    cronJobPod = cron;
  }, 120_000);

  it('lints the Dockerfile clean (dockerfile-utils, the linter of the VS Code Docker extension)', () => {
    const problems = validate(dockerfile).filter((d) => d.severity === ValidationSeverity.ERROR || d.severity === ValidationSeverity.WARNING);
    expect(problems.map((p) => `line ${p.range.start.line + 1}: ${p.message}`)).toEqual([]);
  });

  it('builds in stages on Node 22 LTS slim and runs efa-sync as a non-root user with sql/ and jobs/ and without npm', () => {
    const all = stages(DockerfileParser.parse(dockerfile).getInstructions());
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const s of all) expect(s[0]?.getArgumentsContent()).toMatch(/^node:22[\w.-]*-slim\b/);
    const build = all[0] ?? [];
    expect(build.some((i) => i.getKeyword() === 'RUN' && /\bnpm ci\b/.test(i.getArgumentsContent() ?? ''))).toBe(true);
    const final = all[all.length - 1] ?? [];
    const last = (keyword: string): Instruction | undefined => final.filter((i) => i.getKeyword() === keyword).pop();
    const user = last('USER')?.getArgumentsContent();
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(execForm(last('ENTRYPOINT'))).toEqual(['node', '/app/dist/src/cli/main.js']);
    const copied = final.filter((i) => i.getKeyword() === 'COPY').map((i) => i.getTextContent());
    for (const dir of ['sql', 'jobs']) expect(copied.some((c) => new RegExp(`^COPY ${dir} `).test(c))).toBe(true);
    expect(copied.some((c) => /^COPY --from=\S+ \/app\/node_modules /.test(c))).toBe(true);
    // Nothing is installed in the runtime stage; npm itself is removed from it.
    const runs = final.filter((i) => i.getKeyword() === 'RUN').map((i) => i.getArgumentsContent() ?? '');
    expect(runs.some((r) => /\bnpm (ci|install|i)\b/.test(r))).toBe(false);
    expect(runs.some((r) => /rm -rf[^&]*\/usr\/local\/lib\/node_modules\/npm/.test(r))).toBe(true);
  });

  it('keeps the build context small: node_modules, dist, the local database and .git stay out', async () => {
    const ignored = (await read('.dockerignore')).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    for (const entry of ['node_modules', 'dist', '.efa-sync', '.git']) expect(ignored).toContain(entry);
    for (const needed of ['src', 'sql', 'jobs', 'schema', 'package.json', 'package-lock.json', 'tsconfig.json']) expect(ignored).not.toContain(needed);
  });

  it('catches a command, a flag or a choice the CLI does not have', async () => {
    expect(await argvProblems(cli, ['srve'])).toEqual(['unknown command "srve"']);
    expect(await argvProblems(cli, ['run', 'demo', '--metrics-dir', '/m', '--log-format', 'xml'])).toEqual([
      'efa-sync run: unknown option --metrics-dir',
      'efa-sync run: --log-format xml is not one of pretty, json',
    ]);
    expect(await argvProblems(cli, ['sim', '--host', '0.0.0.0', '--port', '8080'])).toEqual([]);
  }, 60_000);

  it('uses only commands and flags efa-sync has, in every template', async () => {
    const lines: { where: string; argv: string[] }[] = [];
    const finalStage = stages(DockerfileParser.parse(dockerfile).getInstructions()).pop() ?? [];
    lines.push({ where: 'Dockerfile CMD', argv: execForm(finalStage.filter((i) => i.getKeyword() === 'CMD').pop()) });
    for (const [name, s] of Object.entries(compose.services)) {
      if (!s.image?.startsWith('efa-sync')) continue;
      expect(Array.isArray(s.command), `compose ${name}: command as an exec array`).toBe(true);
      lines.push({ where: `docker-compose.yml ${name}`, argv: s.command as string[] });
    }
    for (const c of cronJobPod.containers) lines.push({ where: `cronjob.yaml ${c.name}`, argv: c.args ?? [] });
    const service = await read('docs/deploy/efa-sync.service');
    for (const l of service.split('\n').filter((l) => l.startsWith('ExecStart='))) lines.push({ where: 'efa-sync.service', argv: efaSyncArgv(l) ?? [] });
    for (const file of deployDocs) {
      for (const l of codeLines(await read(file))) {
        const argv = efaSyncArgv(l);
        // `docker compose up … --exit-code-from efa-sync` names the service but runs no command of its own.
        if (argv && argv.length > 0 && !l.trimStart().startsWith('#')) lines.push({ where: file, argv });
      }
    }
    expect(lines.length).toBeGreaterThanOrEqual(15);
    const problems: string[] = [];
    for (const { where, argv } of lines) {
      expect(argv.length, `${where}: an efa-sync command line`).toBeGreaterThan(0);
      for (const p of await argvProblems(cli, argv)) problems.push(`${where}: ${p}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('sets only environment variables efa-sync reads, never to an empty value', async () => {
    const used: { where: string; name: string; value: string | undefined }[] = [];
    for (const i of DockerfileParser.parse(dockerfile).getInstructions().filter((i) => i.getKeyword() === 'ENV')) {
      const [name = '', value] = (i.getArgumentsContent() ?? '').split('=');
      used.push({ where: 'Dockerfile', name, value });
    }
    for (const [name, s] of Object.entries(compose.services)) {
      if (!s.image?.startsWith('efa-sync')) continue;
      for (const [k, v] of Object.entries(environmentOf(s))) used.push({ where: `docker-compose.yml ${name}`, name: k, value: withDefaults(String(v)) });
    }
    for (const c of cronJobPod.containers) for (const e of c.env ?? []) used.push({ where: `cronjob.yaml ${c.name}`, name: e.name, value: e.value ?? (e.valueFrom ? 'from a Secret' : undefined) });
    for (const file of deployDocs) {
      for (const l of codeLines(await read(file))) {
        const m = /^#?\s*([A-Z][A-Z0-9_]*)=(\S*)/.exec(l);
        if (m?.[1]) used.push({ where: file, name: m[1], value: m[2] });
      }
    }
    expect(used.map((u) => u.name)).toEqual(expect.arrayContaining(['DATABASE_URL', 'EFA_BASE_URL']));
    // A crontab sets its own variables beside the program's.
    const crontabVariables = new Set(['SHELL', 'MAILTO', 'PATH', 'CRON_TZ']);
    // The README's development section sets the variables the test harness reads (test/global-setup.ts).
    const testVariables = new Set(['TEST_DATABASE_URL', 'EFA_SYNC_TEST_DOCKER']);
    const known = (u: (typeof used)[number]): boolean =>
      envRead.has(u.name) || ((u.where.endsWith('cron.md') || u.where.endsWith('snapshots.md')) && crontabVariables.has(u.name)) || (u.where === 'README.md' && testVariables.has(u.name));
    expect(used.filter((u) => !known(u)).map((u) => `${u.where}: ${u.name}`)).toEqual([]);
    expect(used.filter((u) => !u.value).map((u) => `${u.where}: ${u.name} is empty`)).toEqual([]);
  });

  it('compose: harvests the demo from the image into PostGIS as the ETL role, against the simulator on the compose network', async () => {
    const services = Object.entries(compose.services);
    for (const [name, s] of services) {
      const words = [s.command, s.entrypoint].flat().filter((w): w is string => typeof w === 'string').join(' ');
      expect(words, `${name} runs npm`).not.toMatch(/\bnpm\b|\bnpx\b/);
    }
    const db = compose.services['db'];
    const etl = services.find(([, s]) => s.image?.startsWith('efa-sync') && Array.isArray(s.command) && s.command[0] === 'run');
    const sim = services.find(([, s]) => s.image?.startsWith('efa-sync') && Array.isArray(s.command) && s.command[0] === 'sim');
    expect(db?.image).toMatch(/^postgis\/postgis:/);
    // Healthy only once the real server listens on TCP, after the init scripts created the role.
    expect(db?.healthcheck?.test.join(' ')).toMatch(/pg_isready -h 127\.0\.0\.1/);
    if (!etl || !sim || !db) throw new Error('compose needs db, sim and an efa-sync run');
    for (const [, s] of [etl, sim]) expect(s.build).toBeDefined();

    const etlEnv = environmentOf(etl[1]);
    const dbUrl = new URL(withDefaults(etlEnv['DATABASE_URL'] ?? ''));
    const superuser = environmentOf(db)['POSTGRES_USER'] ?? 'postgres';
    expect(dbUrl.username).not.toBe(superuser);
    expect(dbUrl.hostname).toBe('db');
    expect(Object.keys(etl[1].depends_on ?? {})).toEqual(expect.arrayContaining(['db', sim[0]]));

    // The init script that creates that role is mounted where the postgis image runs init scripts.
    const initMount = (db.volumes ?? []).find((v) => v.split(':')[1] === '/docker-entrypoint-initdb.d');
    expect(initMount).toBeDefined();
    const initDir = (initMount ?? '').split(':')[0] ?? '';
    const script = await read(join(initDir, '20-efa-etl.sh'));
    expect(script).toMatch(new RegExp(`CREATE ROLE ${dbUrl.username} LOGIN`));
    expect(script).toMatch(new RegExp(`CREATE DATABASE ${dbUrl.pathname.slice(1)} OWNER ${dbUrl.username}`));
    expect(script).toMatch(/CREATE EXTENSION IF NOT EXISTS postgis/);
    // The password the script reads is the one in the ETL's URL.
    const scriptPassword = withDefaults(environmentOf(db)['EFA_ETL_PASSWORD'] ?? '');
    expect(scriptPassword).not.toBe('');
    expect(decodeURIComponent(dbUrl.password)).toBe(scriptPassword);

    // EFA_BASE_URL points at the simulator service, which listens beyond its own loopback.
    const base = new URL(etlEnv['EFA_BASE_URL'] ?? '');
    const simArgs = sim[1].command as string[];
    expect(base.hostname).toBe(sim[0]);
    expect(simArgs[simArgs.indexOf('--host') + 1]).toBe('0.0.0.0');
    expect(simArgs[simArgs.indexOf('--port') + 1]).toBe(base.port);
    expect(base.pathname).toBe('/efa');
  });

  it('CronJob: the image, non-root, read-only root filesystem, DATABASE_URL from a Secret, metrics pushed to a Pushgateway', () => {
    expect(cronJobPod.securityContext?.runAsNonRoot).toBe(true);
    expect(cronJobPod.securityContext?.runAsUser).not.toBe(0);
    const c = cronJobPod.containers.find((x) => x.name === 'efa-sync');
    if (!c) throw new Error('no efa-sync container');
    expect(c.image).toMatch(/efa-sync:/);
    expect(c.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(c.securityContext?.allowPrivilegeEscalation).toBe(false);
    const dbEnv = c.env?.find((e) => e.name === 'DATABASE_URL');
    expect(dbEnv?.valueFrom?.secretKeyRef?.key).toBeTruthy();
    expect(dbEnv?.value).toBeUndefined();

    // A pod's files vanish with it: the metrics go to a Pushgateway, not to a file in an emptyDir.
    const args = c.args ?? [];
    expect(args).not.toContain('--metrics-file');
    expect(c.env?.find((e) => e.name === 'EFA_METRICS_PUSH_URL')?.value).toMatch(/^https?:\/\/[^/]+/);
    // Every place the container writes is a mount backed by an emptyDir (a hostPath is root-owned).
    const mount = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
    expect(mount, '/tmp is mounted').toBeDefined();
    expect(mount?.readOnly).not.toBe(true);
    const volume = cronJobPod.volumes?.find((v) => v.name === mount?.name);
    expect(volume?.emptyDir, '/tmp is an emptyDir').toBeDefined();
    expect(volume?.hostPath).toBeUndefined();
    // The job the CronJob runs is in the ConfigMap it mounts, and is a valid job.
    const jobPath = args[args.indexOf('run') + 1] ?? '';
    const jobs = k8s.find((d) => d.kind === 'ConfigMap')?.data ?? {};
    expect(Object.keys(jobs).map((k) => `/jobs/${k}`)).toContain(jobPath);
    const job = jobs[jobPath.slice('/jobs/'.length)] ?? '';
    expect(() => validateJob(JSON.parse(job), jobPath)).not.toThrow();
  });
});
