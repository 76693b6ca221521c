import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock, type CliRun } from '../../../support/cliHarness.ts';
import { memorySecretStore, unavailableSecretStore } from '../../../support/memorySecretStore.ts';
import { findSentinel, TRACE_HEADER_SENTINEL } from '../../../support/sentinel.ts';
import type { SecretStore } from '../../../../proxy/contracts/secretStore.ts';

let dataDir = '';
let secrets = memorySecretStore();

function airlock(args: string[], input = '', store: SecretStore = secrets): Promise<CliRun> {
  return runAirlock(dataDir, store, args, input);
}

const configText = () => readFileSync(path.join(dataDir, 'airlock.json'), 'utf8');
const savedTraceExport = () => (JSON.parse(configText()) as { settings: { traceExport: unknown } }).settings.traceExport;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-cli-traces-'));
  secrets = memorySecretStore();
});

afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('airlock export traces', () => {
  it('is off by default, takes an endpoint into airlock.json, and turns off again', async () => {
    expect((await airlock(['export', 'traces'])).stdout).toBe('Trace export is off.\n');
    const set = await airlock(['export', 'traces', '--endpoint', ' http://127.0.0.1:4318 ']);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^Spans go to http:\/\/127\.0\.0\.1:4318 /);
    expect(savedTraceExport()).toMatchObject({ otlpEndpoint: 'http://127.0.0.1:4318' });
    expect((await airlock(['export', 'traces'])).stdout).toMatch(/^Spans go to http:\/\/127\.0\.0\.1:4318 /);
    expect((await airlock(['export', 'traces', '--off'])).stdout).toBe('Trace export is off.\n');
    expect(savedTraceExport()).toMatchObject({ otlpEndpoint: null });
  });

  it.each([
    [['--endpoint', 'ftp://collector'], /--endpoint "ftp:\/\/collector": an http:\/\/ or https:\/\/ URL/],
    [['--endpoint', 'collector:4318'], /--endpoint "collector:4318": an http:\/\/ or https:\/\/ URL/],
    [['--endpoint', 'http://x', '--off'], /give --endpoint <url> or --off, not both/],
  ])('refuses %j and says why, as a mistake in the command line (exit 2)', async (args, message) => {
    const run = await airlock(['export', 'traces', ...args]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

describe('airlock export traces --endpoint with credentials in it', () => {
  // A collector's key pasted into the URL would sit in airlock.json, a plain file, and be printed
  // back: it belongs in a header, whose value is kept in the keychain.
  it.each([['https://team:TRACEKEY@api.honeycomb.io'], ['https://TRACEKEY@otlp.example:4318/v1/traces']])(
    'refuses %s, saying where the key goes, without repeating it',
    async (endpoint) => {
      await airlock(['export', 'traces', '--endpoint', 'http://127.0.0.1:4318']);
      const run = await airlock(['export', 'traces', '--endpoint', endpoint]);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toMatch(/--endpoint: the URL holds credentials \(user:password@\).*--header/);
      expect(`${run.stdout}${run.stderr}`).not.toContain('TRACEKEY');
      expect(savedTraceExport()).toMatchObject({ otlpEndpoint: 'http://127.0.0.1:4318' });
    },
  );
});

describe('airlock export traces --header: a collector API key from stdin into the keychain', () => {
  it('keeps the value in the keychain and only the name in airlock.json, lists names, and removes it', async () => {
    await airlock(['export', 'traces', '--endpoint', 'https://api.honeycomb.io']);
    // Piped as a script would (`printf %s "$KEY" | airlock …`), with the newline echo adds.
    const set = await airlock(['export', 'traces', '--header', 'X-Honeycomb-Team'], `${TRACE_HEADER_SENTINEL}\n`);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).toBe(
      'Saved header x-honeycomb-team in the OS keychain (set, ends in 7Q2x).\n' +
        'Spans go to https://api.honeycomb.io (a running Airlock applies it to its next request).\n' +
        'Headers (values in the OS keychain): x-honeycomb-team\n',
    );
    expect(secrets.entries.get('trace-header:x-honeycomb-team')).toBe(TRACE_HEADER_SENTINEL);
    expect(savedTraceExport()).toEqual({ otlpEndpoint: 'https://api.honeycomb.io', headerNames: ['x-honeycomb-team'], headersRevision: 1 });
    expect(findSentinel(configText(), TRACE_HEADER_SENTINEL)).toBeNull();

    // A new endpoint keeps the headers.
    await airlock(['export', 'traces', '--endpoint', 'https://api.eu1.honeycomb.io']);
    const listed = await airlock(['export', 'traces']);
    expect(listed.stdout).toMatch(/Headers \(values in the OS keychain\): x-honeycomb-team\n$/);
    for (const run of [set, listed]) expect(findSentinel(run.stdout + run.stderr, TRACE_HEADER_SENTINEL)).toBeNull();

    const removed = await airlock(['export', 'traces', '--remove-header', 'x-honeycomb-team']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/^Removed header x-honeycomb-team\.\n/);
    expect(secrets.entries.has('trace-header:x-honeycomb-team')).toBe(false);
    expect(savedTraceExport()).toEqual({ otlpEndpoint: 'https://api.eu1.honeycomb.io', headerNames: [], headersRevision: 2 });
  });

  it.each([
    [['--header', 'x honeycomb'], TRACE_HEADER_SENTINEL, /"x honeycomb" is not a header name/],
    [['--header', 'x-team:'], TRACE_HEADER_SENTINEL, /"x-team:" is not a header name/],
    [['--header', 'Content-Type'], TRACE_HEADER_SENTINEL, /"content-type" is set by the exporter/],
    [['--header', 'api-key'], '', /header api-key: the value is empty/],
    [['--header', 'api-key'], `${TRACE_HEADER_SENTINEL}\r\nx-injected: 1`, /header api-key: the value holds a line break \(CR or LF\)/],
    [['--header', 'api-key'], `${TRACE_HEADER_SENTINEL}\0`, /header api-key: the value holds a NUL character/],
    [['--remove-header', 'api-key'], '', /no trace export header "api-key"/],
  ])('refuses %j, says why without the value, and changes nothing', async (args, input, message) => {
    const run = await airlock(['export', 'traces', ...args], input);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(findSentinel(run.stdout + run.stderr, TRACE_HEADER_SENTINEL)).toBeNull();
    expect(secrets.entries.size).toBe(0);
  });

  it('without a keychain says how to fix it, and loses nothing: the name and the old value stay', async () => {
    await airlock(['export', 'traces', '--header', 'api-key'], 'old-license-key-0001');
    const before = configText();
    const run = await airlock(['export', 'traces', '--header', 'api-key'], TRACE_HEADER_SENTINEL, unavailableSecretStore());
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/no OS keychain \(Secret Service\) is available: no D-Bus session\. Start a keyring/);
    // The data directory's own serve: pasted without --data-dir it would serve another.
    expect(run.stderr).toContain(
      `set OTEL_EXPORTER_OTLP_HEADERS (name=value,…) in the environment of \`npx airlock serve --data-dir ${dataDir}\` for this run`,
    );
    expect(findSentinel(run.stdout + run.stderr, TRACE_HEADER_SENTINEL)).toBeNull();
    expect(configText()).toBe(before);
    expect(secrets.entries.get('trace-header:api-key')).toBe('old-license-key-0001');
  });
});
