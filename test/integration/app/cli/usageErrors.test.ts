import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SESSION_PAGE_LIMIT } from '../../../../proxy/contracts/agentSessions.ts';
import { runAirlockBin } from '../../../support/airlockBin.ts';

let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-usage-errors-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

// Exit code 2 for a command line that cannot be run, 1 for a command that failed: the split of
// POSIX utilities (grep, diff) and of argument parsers such as Python's argparse and Rust's clap,
// so a script can tell a typo in it from a failure worth retrying.
describe('a mistake in the command line', () => {
  it.each([
    ['servee', "airlock: unknown command 'servee' (did you mean serve?); see `npx airlock --help`\n"],
    ['profile lst', "airlock: unknown command 'lst' (did you mean list?); see `npx airlock profile --help`\n"],
    ['serve --prot 9', "airlock: unknown option '--prot' (did you mean --port?); see `npx airlock serve --help`\n"],
    ['token list extra', "airlock: too many arguments for 'list'. Expected 0 arguments but got 1; see `npx airlock token list --help`\n"],
    ['export requests', "airlock: required option '--format <format>' not specified; see `npx airlock export requests --help`\n"],
  ])('`airlock %s` is one line on stderr (with a near spelling, if any, and where the usage is) and exit code 2', async (args, line) => {
    const exit = await runAirlockBin(['--data-dir', dataDir, ...args.split(' ')]);
    expect(exit).toMatchObject({ code: 2, stdout: '', stderr: line });
  });

  it.each([['resume looper'], ['replay alk_1'], ['serve'], ['connect']])(
    '`airlock %s --port 80a` is refused as a mistake, not taken for an Airlock that is not running',
    async (command) => {
      const exit = await runAirlockBin(['--data-dir', dataDir, ...command.split(' '), '--port', '80a']);
      expect(exit).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `airlock: option '--port <port>' argument '80a' is invalid. Give a port from 1 to 65535; see \`npx airlock ${command.split(' ')[0]} --help\`\n`,
      });
    },
  );

  it('`airlock key` (a group without its command) lists the commands on stderr and exits 2', async () => {
    const exit = await runAirlockBin(['--data-dir', dataDir, 'key']);
    expect(exit.code).toBe(2);
    expect(exit.stdout).toBe('');
    expect(exit.stderr).toMatch(/^Usage: airlock key \[options\] \[command\]/);
    expect(exit.stderr).toMatch(/\nairlock: `npx airlock key` needs one of the commands above\n$/);
  });

  // A value the command checks itself is as much a mistake as one commander checks (`--port 80a`, `connect nope`):
  // argparse's choices and clap's possible values exit 2 the same way.
  it.each([
    ['export requests --format pdf', 'airlock: --format "pdf": use har or csv; see `npx airlock export requests --help`\n'],
    [
      'export spend --since 7x',
      'airlock: --since "7x": give a duration back from now (30m, 24h, 7d, 2w) or a date (2026-11-01, 2026-11-01T09:00); see `npx airlock export spend --help`\n',
    ],
    [
      'export requests --format csv --status teapot',
      'airlock: --status "teapot": use ok, error or a three-digit status; see `npx airlock export requests --help`\n',
    ],
    ['limits --requests-per-minute abc', 'airlock: --requests-per-minute: must be a number; see `npx airlock limits --help`\n'],
    ['memory --body-capture-kib 0', 'airlock: --body-capture-kib: must be at least 16; see `npx airlock memory --help`\n'],
    [
      'sessions --limit 0',
      `airlock: --limit "0": use a whole number from 1 to ${MAX_SESSION_PAGE_LIMIT}; see \`npx airlock sessions --help\`\n`,
    ],
    [
      'export traces --endpoint notaurl',
      'airlock: --endpoint "notaurl": an http:// or https:// URL; see `npx airlock export traces --help`\n',
    ],
    [
      'profile add gw --name Gateway --base-url ftp://gw.example/v1',
      'airlock: --base-url: The base URL uses ftp:, but only https: and http: are supported; see `npx airlock profile add --help`\n',
    ],
    [
      'profile add Work --name Work --base-url https://gw.example/v1',
      'airlock: id "Work": lowercase letters, digits, - and _ (at most 64); see `npx airlock profile add --help`\n',
    ],
    [
      'profile set gw --base-url ftp://gw.example/v1',
      'airlock: --base-url: The base URL uses ftp:, but only https: and http: are supported; see `npx airlock profile set --help`\n',
    ],
    [
      'serve --base-url ftp://gw.example/v1',
      'airlock: --base-url: The base URL uses ftp:, but only https: and http: are supported; see `npx airlock serve --help`\n',
    ],
    // --base-url makes a profile of its own for the run: the one --profile names would silently not be served.
    [
      'serve --base-url https://gw.example/v1 --profile gw',
      'airlock: give --base-url <url> or --profile <id>, not both; see `npx airlock serve --help`\n',
    ],
    [
      'profile fallback add gw',
      'airlock: name the fallback with --model <model>, --profile <profileId>, or both; see `npx airlock profile fallback add --help`\n',
    ],
  ])('`airlock %s`, a value the command cannot use, is a mistake too: exit code 2', async (args, line) => {
    const exit = await runAirlockBin(['--data-dir', dataDir, ...args.split(' ')]);
    expect(exit).toMatchObject({ code: 2, stdout: '', stderr: line });
  });

  it("an empty --data-dir (a script's unset variable) is refused, not taken for the default data directory", async () => {
    // Were it taken as no option, the fallback is this test's directory, never the machine's own.
    const exit = await runAirlockBin(['--data-dir', '', 'profile', 'remove', 'work'], { ...process.env, AIRLOCK_DATA_DIR: dataDir });
    expect(exit).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        "airlock: option '--data-dir <dir>' argument '' is invalid. It is empty: give a directory, or leave the option out for the default one; see `npx airlock --help`\n",
    });
  });

  it('is told apart from a command that failed, which exits 1', async () => {
    const exit = await runAirlockBin(['--data-dir', dataDir, 'profile', 'use', 'nope']);
    expect(exit).toMatchObject({ code: 1, stdout: '' });
    expect(exit.stderr).toMatch(/^airlock: no profile with id "nope"/);
  });

  it('`--help` lists the exit codes, on stdout, with exit code 0', async () => {
    const exit = await runAirlockBin(['--help']);
    expect(exit.code).toBe(0);
    expect(exit.stdout).toContain('Exit codes: 0 done, 1 failed, 2 a mistake in the command line.');
  });
});
