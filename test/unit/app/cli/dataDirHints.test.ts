import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTROL_TOKEN_ACCOUNT } from '../../../../proxy/contracts/secretStore.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { runAirlock } from '../../../support/cliHarness.ts';

/**
 * A hint run on a data directory other than the default must name it: pasted without `--data-dir`,
 * the suggested command would act on the default directory's profiles and keychain accounts.
 */
let configHome: string;
let otherDir: string;
let defaultDir: string;
const HOME = '/nonexistent-home';

beforeEach(() => {
  configHome = mkdtempSync(path.join(tmpdir(), 'airlock-hints-'));
  defaultDir = path.join(configHome, 'Airlock');
  otherDir = path.join(configHome, 'other dir');
  mkdirSync(defaultDir);
  mkdirSync(otherDir);
});
afterEach(() => rmSync(configHome, { recursive: true, force: true }));

/** Every command a hint names, as written between backticks. */
function hintedCommands(text: string): string[] {
  return [...text.matchAll(/`(npx airlock [^`]*)`/g)].map((match) => match[1] as string);
}

/** A step before the command: one of the CLI's, or a hand edit of the data directory. */
type SetupStep = string[] | ((dataDir: string) => void);

async function hintsOf(dataDir: string, setup: SetupStep[], argsOrMake: string[] | (() => Promise<string[]>)): Promise<string[]> {
  const args = typeof argsOrMake === 'function' ? await argsOrMake() : argsOrMake;
  const secrets = memorySecretStore({ [CONTROL_TOKEN_ACCOUNT]: 'control-token-for-tests' });
  const env = { XDG_CONFIG_HOME: configHome };
  for (const step of setup) {
    if (typeof step === 'function') step(dataDir);
    else await runAirlock(dataDir, secrets, step, '', HOME, env);
  }
  const run = await runAirlock(dataDir, secrets, args, '', HOME, env);
  return hintedCommands(run.stdout + run.stderr);
}

const ADD_WORK = ['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1'];
const ADD_WORK_ACTIVE = [...ADD_WORK, '--activate'];

/** A port on 127.0.0.1 nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return String(port);
}

/** A key typed into airlock.json by hand, which the file refuses, telling where the key goes instead. */
function typeKeyIntoFile(dataDir: string): void {
  const profile = { id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1', api_key: 'typed-into-the-file' };
  writeFileSync(path.join(dataDir, 'airlock.json'), JSON.stringify({ version: 1, profiles: [profile], activeProfileId: 'work' }));
}

const CASES: { name: string; setup: SetupStep[]; args: string[] | (() => Promise<string[]>) }[] = [
  { name: 'profile add: Next: key set', setup: [], args: ADD_WORK },
  { name: 'profile list with none', setup: [], args: ['profile', 'list'] },
  { name: 'profile remove of the active one', setup: [ADD_WORK_ACTIVE], args: ['profile', 'remove', 'work'] },
  { name: 'profile fallback list with none', setup: [ADD_WORK], args: ['profile', 'fallback', 'list', 'work'] },
  { name: 'profile fallback remove out of range', setup: [ADD_WORK], args: ['profile', 'fallback', 'remove', 'work', '3'] },
  { name: 'token list with none', setup: [], args: ['token', 'list'] },
  { name: 'connect without a tool', setup: [], args: ['connect'] },
  { name: 'window with no Airlock running', setup: [], args: async () => ['window', '--port', await closedPort()] },
  { name: 'token revoke of an unknown token', setup: [], args: ['token', 'revoke', 'nobody'] },
  { name: 'profile use with no profiles', setup: [], args: ['profile', 'use', 'work'] },
  { name: 'export requests with no request log', setup: [], args: ['export', 'requests', '--format', 'csv'] },
  { name: 'profile list of a file with a key typed into it', setup: [typeKeyIntoFile], args: ['profile', 'list'] },
  { name: 'resume with no Airlock running', setup: [], args: async () => ['resume', 'aider', '--port', await closedPort()] },
];

describe('hints on a data directory other than the default', () => {
  it.each(CASES)('$name: every hinted command carries --data-dir', async ({ setup, args }) => {
    const hints = await hintsOf(otherDir, setup, args);
    expect(hints.length).toBeGreaterThan(0);
    for (const hint of hints) expect(hint).toMatch(/ --data-dir '[^']*other dir'$/);
  });

  it.each(CASES)('$name: on the default directory no hint carries --data-dir', async ({ setup, args }) => {
    const hints = await hintsOf(defaultDir, setup, args);
    expect(hints.length).toBeGreaterThan(0);
    for (const hint of hints) expect(hint).not.toContain('--data-dir');
  });
});
