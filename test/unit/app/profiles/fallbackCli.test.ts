import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fallbackProblems, profileSchema } from '../../../../proxy/contracts/profile.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { runAirlock, type CliRun } from '../../../support/cliHarness.ts';

let dataDir: string;
const airlock = (args: string[]): Promise<CliRun> => runAirlock(dataDir, memorySecretStore(), args);
const savedFallbacks = (id: string): unknown =>
  (
    JSON.parse(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8')) as { profiles: { id: string; fallbacks: unknown }[] }
  ).profiles.find((profile) => profile.id === id)?.fallbacks;

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-cli-'));
  await airlock(['profile', 'add', 'main', '--name', 'Main', '--base-url', 'https://main.example/v1']);
  await airlock(['profile', 'add', 'backup', '--name', 'Backup', '--base-url', 'https://backup.example/v1']);
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('airlock profile fallback', () => {
  it('adds steps in order, lists them, removes one by position and clears them', async () => {
    expect((await airlock(['profile', 'fallback', 'add', 'main', '--model', 'deepseek-chat'])).stdout).toBe(
      'Profile main falls back to model deepseek-chat (fallback 1).\n',
    );
    await airlock(['profile', 'fallback', 'add', 'main', '--profile', 'backup']);
    await airlock(['profile', 'fallback', 'add', 'main', '--profile', 'backup', '--model', 'glm-4.6']);
    expect((await airlock(['profile', 'fallback', 'list', 'main'])).stdout).toBe(
      '1. model deepseek-chat\n2. profile backup\n3. profile backup, model glm-4.6\n',
    );
    expect(savedFallbacks('main')).toEqual([
      { model: 'deepseek-chat' },
      { profileId: 'backup' },
      { profileId: 'backup', model: 'glm-4.6' },
    ]);

    expect((await airlock(['profile', 'fallback', 'remove', 'main', '2'])).exitCode).toBe(0);
    expect(savedFallbacks('main')).toEqual([{ model: 'deepseek-chat' }, { profileId: 'backup', model: 'glm-4.6' }]);
    await airlock(['profile', 'fallback', 'clear', 'main']);
    expect((await airlock(['profile', 'fallback', 'list', 'main'])).stdout).toContain('Profile main has no fallbacks');
  });

  it.each([
    [['--profile', 'nowhere'], 'Fallback 1 names profile "nowhere", which does not exist: add that profile or remove the fallback.'],
    [['--profile', 'main'], 'Fallback 1 sends the request back to profile "main" unchanged: name another profile or a model.'],
    [[], 'name the fallback with --model <model>, --profile <profileId>, or both'],
  ])('refuses %j with the cause and the fix, and saves nothing', async (options, message) => {
    const run = await airlock(['profile', 'fallback', 'add', 'main', ...options]);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(message);
    expect(savedFallbacks('main')).toEqual([]);
  });

  it('refuses to remove a position that does not exist', async () => {
    const run = await airlock(['profile', 'fallback', 'remove', 'main', '1']);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain('profile main has no fallback 1: positions are 1 to 0');
  });

  it.each([['abc'], ['1.5'], ['']])('takes %j for a position as a mistake in the command line (exit 2)', async (position) => {
    const run = await airlock(['profile', 'fallback', 'remove', 'main', position]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `airlock: position "${position}": give the number \`npx airlock profile fallback list main --data-dir ${dataDir}\` shows`,
    );
  });
});

describe('fallbackProblems', () => {
  const profile = (fallbacks: unknown[]) => profileSchema.parse({ id: 'main', name: 'Main', baseUrl: 'https://x/v1', fallbacks });

  it.each<[unknown[], number]>([
    [[{ model: 'b' }], 0],
    [[{ profileId: 'main', model: 'b' }], 0],
    [[{ profileId: 'backup' }], 0],
    [[{ profileId: 'main' }], 1],
    [[{ profileId: 'gone' }, { profileId: 'main' }], 2],
  ])('%j has %i problem(s)', (fallbacks, count) => {
    expect(fallbackProblems(profile(fallbacks), ['main', 'backup'])).toHaveLength(count);
  });

  it('the schema refuses an empty step and more than five', () => {
    expect(profileSchema.safeParse({ id: 'a', name: 'A', baseUrl: 'x', fallbacks: [{}] }).success).toBe(false);
    const six = Array.from({ length: 6 }, (_unused, index) => ({ model: `m${index}` }));
    expect(profileSchema.safeParse({ id: 'a', name: 'A', baseUrl: 'x', fallbacks: six }).success).toBe(false);
  });
});
