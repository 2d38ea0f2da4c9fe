import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { EXIT_CODE_DOCS, EXIT_CODES_BEGIN, EXIT_CODES_END, exitCodeHelp, exitCodeMarkdown, withExitCodeTables } from '../../src/cli/exit-code-table.js';
import { EXIT_CODE_TABLE, ExitCode } from '../../src/errors.js';
import { runBuiltCli } from '../helpers/built-cli.js';

/**
 * Issue 30: the deploy docs said "1: API or database unreachable → retry" while the code exited 2, and
 * their tables left out 130/143. Every table now comes from the one in src/errors.ts; this fails when a
 * document, `--help` or a shipped scheduler file disagrees with it.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string): Promise<string> => readFile(join(root, path), 'utf8');

/** Property `key=value` lines of a systemd unit (the last one wins, as systemd reads a reset list). */
function unitValue(unit: string, key: string): string | undefined {
  return unit.split('\n').filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1).trim()).at(-1);
}

describe('the one exit-code table', () => {
  it('lists every exit code the code has, 75 and 130/143 included', () => {
    const listed = EXIT_CODE_TABLE.flatMap((r) => r.codes).sort((a, b) => a - b);
    expect(listed).toEqual(Object.values(ExitCode).sort((a, b) => a - b));
    expect(listed).toEqual(expect.arrayContaining([75, 130, 143]));
  });

  it.each(EXIT_CODE_DOCS)('%s carries the generated table and no other (npm run docs:exit-codes)', async (doc) => {
    const text = await read(doc);
    const { text: regenerated, blocks } = withExitCodeTables(text);
    expect(blocks, `${doc} has no ${EXIT_CODES_BEGIN} block`).toBeGreaterThan(0);
    expect(text === regenerated, `${doc}: its exit-code table differs from src/errors.ts: run npm run docs:exit-codes`).toBe(true);
    // No hand-written table beside it: a row that starts with an exit code outside the markers.
    const outside = text.split(EXIT_CODES_BEGIN).map((part, i) => (i === 0 ? part : part.slice(part.indexOf(EXIT_CODES_END))));
    for (const part of outside) expect(part.split('\n').filter((l) => /^\|\s*`?\d{1,3}`?\s*\|/.test(l))).toEqual([]);
  });

  it('catches a stale block', () => {
    const stale = `x\n${EXIT_CODES_BEGIN}\n| exit | meaning |\n| 1 | failed |\n${EXIT_CODES_END}\ny`;
    const { text, blocks } = withExitCodeTables(stale);
    expect(blocks).toBe(1);
    expect(text).toBe(`x\n${EXIT_CODES_BEGIN}\n${exitCodeMarkdown()}\n${EXIT_CODES_END}\ny`);
  });

  it('ends `efa-sync --help` and `efa-sync run --help` (built CLI)', async () => {
    for (const args of [['--help'], ['run', '--help']]) {
      const r = await runBuiltCli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(exitCodeHelp());
      expect(r.stdout).toMatch(/^\s+75\s+temporary failure/m);
      expect(r.stdout).toMatch(/^\s+130, 143\s+stopped by SIGINT, SIGTERM/m);
    }
  }, 60_000);

  it('the systemd unit retries 75 and 1 and never 2, 3, 4; SIGTERM is the stop asked for', async () => {
    const unit = await read('docs/deploy/efa-sync.service');
    expect(unitValue(unit, 'Restart')).toBe('on-failure');
    const prevented = (unitValue(unit, 'RestartPreventExitStatus') ?? '').split(/\s+/).map(Number);
    expect(prevented).toEqual(expect.arrayContaining([ExitCode.usage, ExitCode.partial, ExitCode.locked]));
    expect(prevented).not.toContain(ExitCode.temporaryFailure);
    expect(prevented).not.toContain(ExitCode.failed);
    expect((unitValue(unit, 'SuccessExitStatus') ?? '').split(/\s+/)).toContain(String(ExitCode.terminated));
    expect((unitValue(unit, 'SuccessExitStatus') ?? '').split(/\s+/)).not.toContain(String(ExitCode.temporaryFailure));
  });

  it('the CronJob fails the Job on 2, 3, 4 and retries 75 and 1 within backoffLimit', async () => {
    const docs = parseAllDocuments(await read('docs/deploy/cronjob.yaml')).map((d) => d.toJS() as Record<string, unknown>);
    const cron = docs.find((d) => d['kind'] === 'CronJob') as {
      spec: { jobTemplate: { spec: { backoffLimit: number; podFailurePolicy: { rules: { action: string; onExitCodes?: { operator: string; values: number[] } }[] } } } };
    };
    const job = cron.spec.jobTemplate.spec;
    expect(job.backoffLimit).toBeGreaterThan(0);
    const codes = (action: string): number[] =>
      job.podFailurePolicy.rules.filter((r) => r.action === action && r.onExitCodes?.operator === 'In').flatMap((r) => r.onExitCodes?.values ?? []);
    expect(codes('FailJob')).toEqual(expect.arrayContaining([ExitCode.usage, ExitCode.partial, ExitCode.locked]));
    expect(codes('FailJob')).not.toContain(ExitCode.temporaryFailure);
    expect(codes('FailJob')).not.toContain(ExitCode.failed);
    expect(codes('Ignore')).not.toContain(ExitCode.temporaryFailure);
    expect(codes('Count')).toEqual(expect.arrayContaining([ExitCode.failed, ExitCode.temporaryFailure]));
  });
});
