import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KeychainUnavailableError } from '../../../../proxy/contracts/secretStore.ts';
import type { TraceExportView } from '../../../../proxy/contracts/traceHeaders.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../../../support/otlpReceiver.ts';
import { findSentinel, TRACE_HEADER_SENTINEL } from '../../../support/sentinel.ts';
import { chat, setUpProfile } from './exportSetup.ts';

/**
 * A hosted collector's API key as a trace export header (Honeycomb's `x-honeycomb-team`, per its
 * OpenTelemetry docs): it reaches the collector with every export and nothing else, through the
 * real proxy, control API and OTLP exporter, with a stand-in collector on 127.0.0.1.
 */
let harness: ControlHarness;
let receiver: OtlpReceiver;
let token = '';
/** Every control API answer and every line on stderr, searched for the value at the end. */
const answers: string[] = [];
const stderrLines: string[] = [];

async function api(pathAndQuery: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await harness.api(pathAndQuery, init);
  const text = await response.text();
  answers.push(text);
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
}

const putHeader = (name: string, value: string) =>
  api('/settings/trace-export/headers', { method: 'PUT', body: JSON.stringify({ name, value }) });

/** The headers of the export request that carried this request's span. */
async function exportHeadersOf(requestId: string): Promise<Record<string, unknown>> {
  await expect.poll(() => receiver.rawBodies.findIndex((body) => body.includes(requestId))).toBeGreaterThanOrEqual(0);
  return receiver.requestHeaders[receiver.rawBodies.findIndex((body) => body.includes(requestId))] as Record<string, unknown>;
}

const requestIdOf = (reply: { headers: Record<string, unknown> }): string => String(reply.headers['x-airlock-request-id']);

beforeAll(async () => {
  vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    stderrLines.push(parts.map(String).join(' '));
  });
  receiver = await startOtlpReceiver();
  harness = await startControlHarness();
  token = await setUpProfile(harness, 'trace-agent');
  expect((await api('/settings/trace-export', { method: 'PUT', body: JSON.stringify({ otlpEndpoint: receiver.url }) })).status).toBe(200);
});

afterAll(async () => {
  await harness?.close();
  await receiver?.close();
  vi.restoreAllMocks();
});

describe('trace export headers (a collector API key) through the control API', () => {
  it('keeps the value in the keychain, answers with the name and last four only, and sends it with the next spans', async () => {
    const saved = await putHeader('X-Honeycomb-Team', TRACE_HEADER_SENTINEL);
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      otlpEndpoint: receiver.url,
      headers: [{ name: 'x-honeycomb-team', set: true, lastFour: '7Q2x' }],
      headersProblem: null,
    } satisfies TraceExportView);
    expect(await harness.secrets.get('trace-header:x-honeycomb-team')).toBe(TRACE_HEADER_SENTINEL);
    expect(harness.store.snapshot().settings.traceExport.headerNames).toEqual(['x-honeycomb-team']);
    expect((await api('/settings/trace-export')).body).toEqual(saved.body);

    const reply = await chat(harness, token);
    expect(reply.status).toBe(200);
    expect((await exportHeadersOf(requestIdOf(reply)))['x-honeycomb-team']).toBe(TRACE_HEADER_SENTINEL);
  });

  it('masks the value where it could be echoed: a prompt holding it in the log, a collector quoting it on stderr', async () => {
    const pasted = await chat(harness, token, { messages: [{ role: 'user', content: `my team key is ${TRACE_HEADER_SENTINEL}` }] });
    const detail = await harness.loggedDetail(pasted);
    expect(JSON.stringify(detail)).toContain('[redacted]');
    expect(findSentinel(JSON.stringify(detail), TRACE_HEADER_SENTINEL)).toBeNull();

    // A collector that refuses the key and quotes it in its reason phrase, which the exporter reports.
    receiver.refuseWith(401, (headers) => `Unknown API key ${String(headers['x-honeycomb-team'])}`);
    const refused = await chat(harness, token);
    await exportHeadersOf(requestIdOf(refused));
    await expect.poll(() => stderrLines.find((line) => line.includes('failed ('))).toBeDefined();
    const report = stderrLines.find((line) => line.includes('failed (')) ?? '';
    expect(report).toMatch(/failed \(401 Unknown API key \[redacted\]\): the collector refused the credentials/);
    expect(report).toMatch(/airlock export traces --header <name>/);
    receiver.refuseWith(null);
  });

  it('sends a changed value from the next request on, and none once the header is removed', async () => {
    const replaced = await putHeader('x-honeycomb-team', '  second-team-key-0042\n');
    expect(replaced.body.headers).toEqual([{ name: 'x-honeycomb-team', set: true, lastFour: '0042' }]);
    const after = await chat(harness, token);
    expect((await exportHeadersOf(requestIdOf(after)))['x-honeycomb-team']).toBe('second-team-key-0042');

    const removed = await api('/settings/trace-export/headers?name=X-Honeycomb-Team', { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(removed.body.headers).toEqual([]);
    expect(await harness.secrets.get('trace-header:x-honeycomb-team')).toBeNull();
    const without = await chat(harness, token);
    expect((await exportHeadersOf(requestIdOf(without)))['x-honeycomb-team']).toBeUndefined();
  });

  it.each([
    [{ name: 'x honeycomb', value: TRACE_HEADER_SENTINEL }, 'name', /name: "x honeycomb" is not a header name/],
    [{ name: 'content-length', value: TRACE_HEADER_SENTINEL }, 'name', /is set by the exporter/],
    [{ name: 'api-key', value: `${TRACE_HEADER_SENTINEL}\r\nx-injected: 1` }, 'value', /value: the value holds a line break/],
    [{ name: 'api-key', value: `${TRACE_HEADER_SENTINEL}\0` }, 'value', /value: the value holds a NUL character/],
    [{ name: 'api-key', value: '   ' }, 'value', /value: the value is empty/],
  ])('refuses %j naming the field, without the value', async (body, field, message) => {
    const refused = await api('/settings/trace-export/headers', { method: 'PUT', body: JSON.stringify(body) });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid', field, message: expect.stringMatching(message) });
    expect(harness.store.snapshot().settings.traceExport.headerNames).toEqual([]);
  });

  it('answers a removal of an unknown header with 404', async () => {
    const missing = await api('/settings/trace-export/headers?name=api-key', { method: 'DELETE' });
    expect(missing.status).toBe(404);
  });

  it('without a keychain refuses with the fix and keeps the header it had', async () => {
    await putHeader('api-key', 'license-key-before-0007');
    const set = harness.secrets.set;
    harness.secrets.set = async () => {
      throw new KeychainUnavailableError('no D-Bus session');
    };
    try {
      const refused = await putHeader('api-key', TRACE_HEADER_SENTINEL);
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({
        code: 'keychain_unavailable',
        message: expect.stringMatching(/Start a keyring .* or set OTEL_EXPORTER_OTLP_HEADERS .* for this run/),
      });
    } finally {
      harness.secrets.set = set;
    }
    expect((await api('/settings/trace-export')).body.headers).toEqual([{ name: 'api-key', set: true, lastFour: '0007' }]);
    expect(await harness.secrets.get('trace-header:api-key')).toBe('license-key-before-0007');
  });

  it('never lets the value reach the log database, airlock.json, stderr or a control API answer', async () => {
    await harness.log.flush();
    const files = readdirSync(harness.dataDir, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
    expect(files.map((file) => path.basename(file))).toEqual(expect.arrayContaining(['requests.db', 'airlock.json']));
    for (const file of files) expect(findSentinel(readFileSync(file), TRACE_HEADER_SENTINEL), file).toBeNull();
    expect(findSentinel(stderrLines.join('\n'), TRACE_HEADER_SENTINEL)).toBeNull();
    expect(findSentinel(answers.join('\n'), TRACE_HEADER_SENTINEL)).toBeNull();
    const requests = await harness.api('/requests?limit=100');
    expect(findSentinel(await requests.text(), TRACE_HEADER_SENTINEL)).toBeNull();
  });
});
