import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKeytarSecretStore } from '../../proxy/app/secrets/keytarStore.ts';
import { spawnAirlock, type AirlockProcess } from '../support/airlockBin.ts';
import { freePort } from '../support/freePort.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../simulator/index.ts';

const AIRLOCK_BIN = fileURLToPath(new URL('../../proxy/app/cli/bin.js', import.meta.url));
const secrets = createKeytarSecretStore();
let firstDir: string;
let secondDir: string;
/** Stands for the user's config home: the default data directory is `<it>/Airlock` (XDG_CONFIG_HOME). */
let configHome: string;
let firstGateway: GatewaySimulator;
let secondGateway: GatewaySimulator;
let serving: AirlockProcess | null = null;

interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real `airlock` command in its own process, with `input` on its stdin (`key set` reads the key there). */
function airlock(args: string[], input = '', env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [AIRLOCK_BIN, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

/** `airlock serve` on the data directory, once it has said all its start lines. */
async function serve(dataDir: string): Promise<{ port: number; startLines: string }> {
  const port = await freePort();
  serving = spawnAirlock(['--data-dir', dataDir, 'serve', '--port', String(port)]);
  await serving.printed(/Window \(opens signed in/);
  return { port, startLines: serving.stdout() };
}

async function clientToken(dataDir: string): Promise<string> {
  const created = await airlock(['--data-dir', dataDir, 'token', 'create', 'probe']);
  expect(created.code).toBe(0);
  return created.stdout.trim();
}

function chat(port: number, token: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

beforeEach(async () => {
  firstDir = mkdtempSync(path.join(tmpdir(), 'airlock-keychain-first-'));
  secondDir = mkdtempSync(path.join(tmpdir(), 'airlock-keychain-second-'));
  configHome = mkdtempSync(path.join(tmpdir(), 'airlock-keychain-home-'));
  firstGateway = await startGatewaySimulator({ validKeys: [SENTINEL_KEY] });
  secondGateway = await startGatewaySimulator({ validKeys: [SENTINEL_KEY] });
});

afterEach(async () => {
  if (serving) {
    serving.child.kill('SIGINT');
    await serving.exited;
    serving = null;
  }
  for (const dataDir of [firstDir, secondDir]) await airlock(['--data-dir', dataDir, 'key', 'delete', 'work']);
  // The plain account: the default data directory's, and every directory's before they had their own.
  await secrets.delete('work');
  await Promise.all([firstGateway.close(), secondGateway.close()]);
  for (const directory of [firstDir, secondDir, configHome]) rmSync(directory, { recursive: true, force: true });
});

// Each test runs the real `airlock` up to eight times, each a Node start with its keychain helper: past the project's 30 s on a busy 2-core machine.
describe('a profile id used in two data directories', { timeout: 90_000 }, () => {
  it("never sends one directory's key to the other directory's gateway", async () => {
    expect(
      (await airlock(['--data-dir', firstDir, 'profile', 'add', 'work', '--name', 'Work', '--base-url', firstGateway.baseUrl])).code,
    ).toBe(0);
    expect((await airlock(['--data-dir', firstDir, 'key', 'set', 'work'], `${SENTINEL_KEY}\n`)).code).toBe(0);
    expect(
      (await airlock(['--data-dir', secondDir, 'profile', 'add', 'work', '--name', 'Other', '--base-url', secondGateway.baseUrl])).code,
    ).toBe(0);
    const token = await clientToken(secondDir);

    const { port, startLines } = await serve(secondDir);
    expect(startLines).toContain(`key not set: \`npx airlock key set work --data-dir ${secondDir}\``);
    const answer = await chat(port, token);
    expect(answer.status).toBe(403);
    expect(secondGateway.received).toEqual([]);
    // The first directory keeps its key.
    expect((await airlock(['--data-dir', firstDir, 'profile', 'list'])).stdout).toContain(`key: set, ends in ${SENTINEL_KEY.slice(-4)}`);
  });

  it('refuses a key held only under the shared account, in the client protocol, naming the command that sets its own', async () => {
    // Where every data directory's key was kept before they had their own accounts.
    await secrets.set('work', SENTINEL_KEY);
    expect(
      (await airlock(['--data-dir', secondDir, 'profile', 'add', 'work', '--name', 'Other', '--base-url', secondGateway.baseUrl])).code,
    ).toBe(0);
    const token = await clientToken(secondDir);
    const fix = `npx airlock key set work --data-dir ${secondDir}`;
    const listed = await airlock(['--data-dir', secondDir, 'profile', 'list']);
    expect(listed.stdout).toContain('key: not set for this data directory');
    expect(listed.stderr).toContain(fix);

    const { port } = await serve(secondDir);
    // The notes follow the window's link, in a write of their own.
    await serving?.printed(/Note: .*key set work --data-dir/);
    const startLines = serving?.stdout() ?? '';
    expect(startLines).toContain('key not set for this data directory: see the note below');
    expect(startLines).toContain(fix);
    const openAi = await chat(port, token);
    expect(openAi.status).toBe(403);
    const openAiError = (await openAi.json()) as { error: { message: string } };
    expect(openAiError.error.message).toContain(fix);
    const anthropic = await fetch(`http://127.0.0.1:${port}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(anthropic.status).toBe(403);
    const anthropicError = (await anthropic.json()) as { type: string; error: { message: string } };
    expect(anthropicError.type).toBe('error');
    expect(anthropicError.error.message).toContain(fix);
    expect(secondGateway.received).toEqual([]);
    for (const output of [listed.stdout, listed.stderr, startLines, openAiError.error.message]) expect(findSentinel(output)).toBeNull();
  });

  it('keeps the default data directory on the plain account, however it is named', async () => {
    const home = { XDG_CONFIG_HOME: configHome, AIRLOCK_DATA_DIR: '' };
    expect((await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', firstGateway.baseUrl], '', home)).code).toBe(0);
    expect((await airlock(['key', 'set', 'work'], `${SENTINEL_KEY}\n`, home)).code).toBe(0);
    expect(await secrets.get('work')).toBe(SENTINEL_KEY);
    const named = await airlock(['--data-dir', path.join(configHome, 'Airlock'), 'profile', 'list'], '', home);
    expect(named.stdout).toContain(`key: set, ends in ${SENTINEL_KEY.slice(-4)}`);
  });
});
