import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock, type CliRun } from '../../../support/cliHarness.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';

let dataDir = '';

function airlock(args: string[]): Promise<CliRun> {
  return runAirlock(dataDir, memorySecretStore(), args);
}

const savedEndpoint = () =>
  (JSON.parse(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8')) as { settings: { traceExport: unknown } }).settings.traceExport;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-cli-traces-'));
});

afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('airlock export traces', () => {
  it('is off by default, takes an endpoint into airlock.json, and turns off again', async () => {
    expect((await airlock(['export', 'traces'])).stdout).toBe('Trace export is off.\n');
    const set = await airlock(['export', 'traces', '--endpoint', ' http://127.0.0.1:4318 ']);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^Spans go to http:\/\/127\.0\.0\.1:4318 /);
    expect(savedEndpoint()).toEqual({ otlpEndpoint: 'http://127.0.0.1:4318' });
    expect((await airlock(['export', 'traces'])).stdout).toMatch(/^Spans go to http:\/\/127\.0\.0\.1:4318 /);
    expect((await airlock(['export', 'traces', '--off'])).stdout).toBe('Trace export is off.\n');
    expect(savedEndpoint()).toEqual({ otlpEndpoint: null });
  });

  it.each([
    [['--endpoint', 'ftp://collector'], /--endpoint "ftp:\/\/collector": an http:\/\/ or https:\/\/ URL/],
    [['--endpoint', 'collector:4318'], /--endpoint "collector:4318": an http:\/\/ or https:\/\/ URL/],
    [['--endpoint', 'http://x', '--off'], /give --endpoint <url> or --off, not both/],
  ])('refuses %j and says why', async (args, message) => {
    const run = await airlock(['export', 'traces', ...args]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(message);
  });
});
