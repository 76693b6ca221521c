import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatewayKeyAccount } from '../../../../proxy/contracts/secretStore.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

let root: string;
let homeDir: string;
let dataDir: string;
let secrets: ReturnType<typeof memorySecretStore>;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'airlock-connect-cli-'));
  homeDir = path.join(root, 'home');
  dataDir = path.join(root, 'data');
  mkdirSync(homeDir);
  secrets = memorySecretStore();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const connect = (...args: string[]) => runAirlock(dataDir, secrets, ['connect', ...args], '', homeDir);
const aiderFile = () => path.join(homeDir, '.aider.conf.yml');

describe('airlock connect', () => {
  it('lists every tool and whether it is found', async () => {
    writeFileSync(aiderFile(), '# my options\ndark-mode: true\n');
    const run = await connect();
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^claude-code +not found$/m);
    expect(run.stdout).toMatch(/^aider +found, not connected$/m);
    expect(run.stdout).toContain(`  ${aiderFile()}`);
  });

  it('without an active profile, says the tool is refused until there is one, and how to add it', async () => {
    const applied = await connect('aider', '--model', 'gw-model');
    expect(applied.exitCode).toBe(0);
    expect(applied.stderr).toContain(
      `Next: no profile is active yet, so Airlock refuses the tool's requests: add one with \`npx airlock profile add <id> --base-url <url> --activate --data-dir ${dataDir}\`` +
        ` (or serve a gateway for one run: \`npx airlock serve --base-url <url> --data-dir ${dataDir}\` with AIRLOCK_API_KEY set).`,
    );
    await runAirlock(dataDir, secrets, ['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1', '--activate']);
    expect((await connect('codex', '--model', 'gw-model')).stderr).not.toContain('no profile is active');
  });

  it('says it writes the NO_PROXY bypass and why, in a dry run and when applying', async () => {
    const env = { HTTP_PROXY: 'http://proxy.corp:3128' };
    const note = 'Wrote NO_PROXY=127.0.0.1 in .env for Codex CLI: HTTP_PROXY is set here';
    const planned = await runAirlock(dataDir, secrets, ['connect', 'codex', '--model', 'gpt-5', '--dry-run'], '', homeDir, env);
    expect(planned.stdout).toContain('+NO_PROXY=127.0.0.1');
    expect(planned.stderr).toContain(note);
    expect((await runAirlock(dataDir, secrets, ['connect', 'codex', '--model', 'gpt-5'], '', homeDir, env)).stderr).toContain(note);
  });

  it('--dry-run prints the diff and writes nothing', async () => {
    writeFileSync(aiderFile(), '# my options\ndark-mode: true\n');
    const run = await connect('aider', '--dry-run', '--model', 'deepseek-chat');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('+openai-api-base: http://127.0.0.1:8642/v1');
    expect(run.stdout).toContain('+openai-api-key: <new client token "aider">');
    expect(run.stdout).toContain('+model: openai/deepseek-chat');
    expect(run.stderr).toContain('Dry run: nothing was written');
    expect(readFileSync(aiderFile(), 'utf8')).toBe('# my options\ndark-mode: true\n');
  });

  it('applies on the given port, reports the token and backup, and --undo puts the file back', async () => {
    writeFileSync(aiderFile(), '# my options\ndark-mode: true\n');
    const applied = await connect('aider', '--port', '9911', '--model', 'gw-model');
    expect(applied.exitCode).toBe(0);
    expect(applied.stderr).toMatch(
      /Created client token "aider"\. Backup \d{8}T\d+Z: undo with `npx airlock connect aider --undo --data-dir /,
    );
    expect(applied.stderr).toContain(`--undo --data-dir ${dataDir}\`.`);
    const written = readFileSync(aiderFile(), 'utf8');
    expect(written).toContain('# my options\ndark-mode: true\n');
    expect(written).toMatch(/openai-api-base: http:\/\/127\.0\.0\.1:9911\/v1\nopenai-api-key: alk_/);
    // The token is printed nowhere: only its masked label.
    expect(applied.stdout + applied.stderr).not.toMatch(/alk_[A-Za-z0-9_-]{20}/);

    expect((await connect('--port', '9911')).stdout).toMatch(/^aider +connected \(client token "aider"\)$/m);
    const undone = await connect('aider', '--undo');
    expect(undone.stdout).toBe(`Restored ${aiderFile()}\n`);
    expect(readFileSync(aiderFile(), 'utf8')).toBe('# my options\ndark-mode: true\n');
  });

  it('--import moves the key into the keychain and never prints it', async () => {
    writeFileSync(aiderFile(), `openai-api-base: https://gw.example.com/v1\nopenai-api-key: ${SENTINEL_KEY}\n`);
    const listing = await connect();
    expect(listing.stdout).toContain(`key for https://gw.example.com/v1 ending in ${SENTINEL_KEY.slice(-4)} can be imported (--import)`);
    const dry = await connect('aider', '--import', '--dry-run', '--model', 'gw-model');
    const run = await connect('aider', '--import', '--model', 'gw-model');
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('The gateway key is now in the OS keychain, in profile "gw-example-com".');
    expect(secrets.entries.get(gatewayKeyAccount('gw-example-com'))).toBe(SENTINEL_KEY);
    for (const output of [listing, dry, run]) expect(findSentinel(output.stdout + output.stderr)).toBeNull();
    expect(findSentinel(readFileSync(aiderFile(), 'utf8'))).toBeNull();
  });

  it('refuses to connect a tool that names no model of its own without --model, naming the tool, and writes nothing', async () => {
    // A fresh Codex config gets model_provider = "airlock" and no model: Codex would ask the gateway for
    // its built-in OpenAI model id, a 404 on a gateway without it.
    const refused = await connect('codex');
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('Codex CLI has no model of its own set in');
    expect(refused.stderr).toContain('choose the model Codex CLI should ask Airlock for');
    expect(existsSync(path.join(homeDir, '.codex'))).toBe(false);
  });

  it('takes --model as the window does: trimmed, and refused when empty or more than one line, writing nothing', async () => {
    // A line break reached aider's file, which Airlock then refused as the user's own invalid YAML.
    for (const [model, reason] of [
      ['gw\nmodel', 'A model id is one line of visible characters, and this one holds U+000A (a line break) at character 3'],
      ['', 'The model id is empty'],
      ['  ', 'The model id is empty'],
    ] as const) {
      const refused = await connect('aider', '--model', model);
      expect(refused.exitCode, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(reason);
      expect(existsSync(aiderFile())).toBe(false);
    }
    const pasted = await connect('aider', '--model', ' gw-model \n');
    expect(pasted.exitCode, pasted.stderr).toBe(0);
    expect(readFileSync(aiderFile(), 'utf8')).toContain('model: openai/gw-model\n');
  });

  it('refuses an unknown tool (a mistake in the command line: exit 2) and a nothing-to-undo (exit 1) with one line', async () => {
    const unknown = await connect('vim');
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/'vim' is invalid.*Allowed choices are claude-code, codex, opencode, aider, continue, cline/);
    const nothing = await connect('codex', '--undo');
    expect(nothing.exitCode).toBe(1);
    expect(nothing.stderr).toBe("airlock: Airlock has not written Codex CLI's config, so there is nothing to undo.\n");
  });

  it('--forget-backups deletes the backups and the old key in them, leaving the file as it is', async () => {
    writeFileSync(aiderFile(), `openai-api-base: https://gw.example.com/v1\nopenai-api-key: ${SENTINEL_KEY}\n`);
    await connect('aider', '--model', 'gw-model');
    const written = readFileSync(aiderFile(), 'utf8');
    expect((await connect()).stdout).toContain('1 backup(s), --undo restores the last, --forget-backups deletes them');
    const forgot = await connect('aider', '--forget-backups');
    expect(forgot.stdout).toBe('Deleted 1 backup(s) of aider; its files stay as they are.\n');
    expect(existsSync(path.join(dataDir, 'connect-backups', 'aider'))).toBe(false);
    expect(readFileSync(aiderFile(), 'utf8')).toBe(written);
    expect((await connect('aider', '--forget-backups')).stdout).toBe('aider has no backups.\n');
  });
});
