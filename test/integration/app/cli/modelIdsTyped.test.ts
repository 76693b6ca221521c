import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock, type CliRun } from '../../../support/cliHarness.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

/** A key in lowercase letters and digits (sk- and 32 hex digits, as DeepSeek's): it passes the profile id pattern. */
const LOWERCASE_KEY = 'sk-3f9a2b7c8d1e4f5a6b7c8d9e0f1a2b3c';

let dataDir: string;
let homeDir: string;
const airlock = (args: string[]): Promise<CliRun> => runAirlock(dataDir, memorySecretStore(), args, '', homeDir);
const configText = (): string => readFileSync(path.join(dataDir, 'airlock.json'), 'utf8');
/** Every file under the temporary home: the tools' config files connect writes. */
const homeTexts = (): string[] =>
  readdirSync(homeDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-cli-'));
  homeDir = path.join(dataDir, 'home');
  mkdirSync(homeDir);
  expect((await airlock(['profile', 'add', 'main', '--base-url', 'https://main.example/v1'])).exitCode).toBe(0);
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a gateway key typed where a model id goes', () => {
  it.each([SENTINEL_KEY, LOWERCASE_KEY])('is refused by connect --model, unrepeated and written nowhere (%#)', async (key) => {
    const run = await airlock(['connect', 'aider', '--model', key]);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain('the model id looks like a gateway key');
    expect(findSentinel(run.stdout + run.stderr, key)).toBeNull();
    expect(homeTexts().filter((text) => findSentinel(text, key) !== null)).toEqual([]);
  });

  it.each([
    ['--model', SENTINEL_KEY],
    ['--model', LOWERCASE_KEY],
    ['--profile', LOWERCASE_KEY],
    ['--profile', SENTINEL_KEY],
  ])('is refused by profile fallback add %s, unrepeated and unsaved (%#)', async (option, key) => {
    const run = await airlock(['profile', 'fallback', 'add', 'main', option, key]);
    expect(run.exitCode).not.toBe(0);
    expect(findSentinel(run.stdout + run.stderr, key)).toBeNull();
    expect(findSentinel(configText(), key)).toBeNull();
  });
});

describe('model ids that hosted gateways list', () => {
  // Together AI, Fireworks, Bedrock and OpenAI fine-tune ids: long, mixed case and digits, but no key.
  it.each([
    'togethercomputer/RedPajama-INCITE-7B-Instruct',
    'accounts/fireworks/models/llama-v3p1-405b-instruct',
    'us.anthropic.claude-3-5-sonnet-20241022-v2:0',
    'ft:gpt-4o-mini:org::BwKq2mXzR8nTfY4pLcVd',
    // Hugging Face repo ids as Featherless serves them, an organisation named in capitalised words.
    'FreedomIntelligence/HuatuoGPT-o1-8B',
    'MarinaraSpaghetti/NemoMix-Unleashed-12B',
  ])('are taken as a fallback model: %s', async (model) => {
    const run = await airlock(['profile', 'fallback', 'add', 'main', '--model', model]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(configText()).toContain(model);
  });
});

describe('a line separator or control character in a model id or a profile name', () => {
  it.each([
    ['\u2028', 'U+2028 (a line separator)'],
    ['\u2029', 'U+2029 (a paragraph separator)'],
    ['\u001b', 'U+001B (an escape character)'],
    ['\u0085', 'U+0085 (a next-line character)'],
  ])("is refused by connect --model, naming it, and aider's file is left alone (%#)", async (character, named) => {
    const run = await airlock(['connect', 'aider', '--model', `gpt-4o${character}mini`]);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(`${named} at character 7`);
    expect(homeTexts()).toEqual([]);
  });

  it('is refused by profile fallback add --model, naming it', async () => {
    const run = await airlock(['profile', 'fallback', 'add', 'main', '--model', 'gpt-4o\u2028mini']);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(
      'fallbacks: a model id is one line of visible characters, and this one holds U+2028 (a line separator) at character 7',
    );
    expect(configText()).not.toContain('gpt-4o');
  });

  it.each([
    ['profile', 'add', 'other', '--base-url', 'https://other.example/v1', '--name', 'Work\u2029Other'],
    ['profile', 'set', 'main', '--name', 'Work\u2029Other'],
  ])('is refused in a profile name: %j', async (...args) => {
    const run = await airlock(args);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(
      'the name is one line of visible characters, and this one holds U+2029 (a paragraph separator) at character 5',
    );
    expect(configText()).not.toContain('Work');
  });
});

describe('a gateway key pasted into the base URL', () => {
  it.each([
    ['profile', 'add', 'other', '--base-url', `https://gw.example/${SENTINEL_KEY}/v1`],
    ['profile', 'set', 'main', '--base-url', `https://gw.example/${LOWERCASE_KEY}/v1`],
  ])('before /v1 is refused, unrepeated and unsaved: %j', async (...args) => {
    const key = args.at(-1)?.split('/')[3] ?? '';
    const run = await airlock(args);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain('looks like a gateway key in its path');
    expect(findSentinel(run.stdout + run.stderr, key)).toBeNull();
    expect(findSentinel(configText(), key)).toBeNull();
  });
});
