import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock, type CliRun } from '../../../support/cliHarness.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

let dataDir: string;
const airlock = (args: string[]): Promise<CliRun> => runAirlock(dataDir, memorySecretStore(), args);

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-cli-'));
  expect((await airlock(['profile', 'add', 'main', '--base-url', 'https://main.example/v1'])).exitCode).toBe(0);
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a number option', () => {
  it.each([
    [['limits', '--credits-per-minute'], '--credits-per-minute'],
    [['limits', '--requests-per-minute'], '--requests-per-minute'],
    [['memory', '--log-backlog-mib'], '--log-backlog-mib'],
    [['memory', '--body-capture-kib'], '--body-capture-kib'],
    [['profile', 'set', 'main', '--max-body-mib'], '--max-body-mib'],
  ])('%j refuses a number past the largest double, naming it, and saves nothing', async (command, option) => {
    const before = readFileSync(path.join(dataDir, 'airlock.json'), 'utf8');
    const run = await airlock([...command, '1e400']);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(`${option}: '1e400' is too large to store`);
    expect(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8')).toBe(before);
  });

  // Number() read these as 16 and 0: a limit of 16 requests a minute was saved from a typo.
  it.each([
    ['0x10', "'0x10' is not a plain number"],
    ['1,5', "'1,5' has a comma"],
    ['', 'give a number'],
  ])('refuses %j as the window does', async (text, message) => {
    const run = await airlock(['limits', '--requests-per-minute', text]);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(`--requests-per-minute: ${message}`);
  });
});
