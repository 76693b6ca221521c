import { parse } from 'csv-parse/sync';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HarLog } from '../../../../proxy/app/export/har.ts';
import { CONTROL_TOKEN, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { harSchema } from '../../../support/harSchema.ts';
import { findSentinel } from '../../../support/sentinel.ts';
import { chat, setUpProfile } from './exportSetup.ts';

let harness: ControlHarness;
let token = '';
let outDir = '';
const requestIds: string[] = [];

async function download(pathAndQuery: string): Promise<{ status: number; type: string; disposition: string; text: string }> {
  const response = await harness.api(pathAndQuery);
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    disposition: response.headers.get('content-disposition') ?? '',
    text: await response.text(),
  };
}

/** Nothing that authenticates anyone: the gateway key, the client token, the control token. */
function expectNoCredential(text: string): void {
  expect(findSentinel(text)).toBeNull();
  expect(text).not.toContain(token);
  expect(text).not.toContain(CONTROL_TOKEN);
}

beforeAll(async () => {
  harness = await startControlHarness();
  token = await setUpProfile(harness, 'export-agent');
  outDir = mkdtempSync(path.join(tmpdir(), 'airlock-export-out-'));
  for (const overrides of [
    {},
    { stream: true },
    { model: 'no-such-model' },
    { model: 'glm-4.6', messages: [{ role: 'user', content: 'find=me, "quoted"' }] },
  ]) {
    const reply = await chat(harness, token, overrides);
    requestIds.push(String(reply.headers['x-airlock-request-id']));
  }
});

afterAll(async () => {
  await harness?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('downloads from the control API', () => {
  it('HAR: every request as a valid HAR 1.2 entry, newest first, bodies kept and no credential', async () => {
    const har = await download('/export/requests?format=har');
    expect(har.status).toBe(200);
    expect(har.type).toMatch(/^application\/json/);
    expect(har.disposition).toMatch(/^attachment; filename="airlock-requests-\d{8}-\d{4}\.har"$/);
    const document: unknown = JSON.parse(har.text);
    expect(harSchema.safeParse(document).error?.issues ?? []).toEqual([]);
    const parsed = document as HarLog;
    expect(parsed.log.entries.map((entry) => entry._airlock.id)).toEqual([...requestIds].reverse());
    const stream = parsed.log.entries.find((entry) => entry._airlock.stream);
    expect(stream?.response.content.mimeType).toBe('text/event-stream');
    expect(stream?.response.content.text).toContain('data: [DONE]');
    for (const entry of parsed.log.entries) {
      expect(entry.request.url.startsWith(`${harness.proxy.url}/v1/`)).toBe(true);
      expect(entry.request.headers.map((header) => header.name.toLowerCase())).not.toContain('authorization');
    }
    expectNoCredential(har.text);
  });

  it('CSV with the request list filters: by model, by status, by text', async () => {
    const records = async (query: string) =>
      parse((await download(`/export/requests?format=csv${query}`)).text, { columns: true }) as Record<string, string>[];
    const all = await records('');
    expect(all.map((record) => record.id)).toEqual([...requestIds].reverse());
    // No fall back, pool or replay here: those cells stay empty (exportChain.test.ts fills them); a chat without an
    // agent's session header is grouped by its conversation's opening.
    for (const record of all)
      expect(record).toMatchObject({
        fallback_chain: '',
        gateway_keys: '',
        replay_of: '',
        agent_session: expect.stringMatching(/^conv-[0-9a-f]+$/),
      });
    expect((await records('&model=glm-4.6')).map((record) => record.id)).toEqual([requestIds[3]]);
    expect(await records('&status=error')).toMatchObject([{ id: requestIds[2], status: '404', error_class: 'model_not_found' }]);
    expect((await records('&text=find%3Dme')).map((record) => record.id)).toEqual([requestIds[3]]);
    expect(await records(`&fromMs=${Date.now() + 60_000}`)).toEqual([]);
  });

  it('refuses an unknown format, saying which ones exist', async () => {
    const refused = await download('/export/requests?format=xml');
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'invalid', field: 'format' } });
  });

  it('spend as CSV per day and model', async () => {
    const spend = await download('/export/spend?range=7d&groupBy=model');
    expect(spend.status).toBe(200);
    expect(spend.type).toMatch(/^text\/csv/);
    const rows = parse(spend.text, { columns: true }) as Record<string, string>[];
    const byModel = Object.fromEntries(rows.map((row) => [row.group, row]));
    expect(byModel['gpt-4o-mini']?.requests).toBe('2');
    expect(byModel['glm-4.6']?.requests).toBe('1');
    expect(byModel['no-such-model']?.requests).toBe('1');
    expect(rows.every((row) => row.group_by === 'model' && /^\d{4}-\d{2}-\d{2}$/.test(row.day ?? ''))).toBe(true);
  });
});

describe('airlock export, reading the log beside the running Airlock', () => {
  it('requests as HAR to a file readable by its owner only', async () => {
    const file = path.join(outDir, 'requests.har');
    const run = await runAirlock(harness.dataDir, harness.secrets, ['export', 'requests', '--format', 'har', '--out', file]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(`Exported ${requestIds.length} requests as HAR to ${file}.`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(harSchema.parse(JSON.parse(text)).log.entries).toHaveLength(requestIds.length);
    expectNoCredential(text);
  });

  it('over a file that others could read, leaves it readable by its owner only', async () => {
    const file = path.join(outDir, 'shared.csv');
    writeFileSync(file, 'old\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    const run = await runAirlock(harness.dataDir, harness.secrets, ['export', 'requests', '--format', 'csv', '--out', file]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^id,/);
  });

  it('says which --out it cannot write, and why, in words', async () => {
    const file = path.join(outDir, 'no-such-folder', 'requests.csv');
    const run = await runAirlock(harness.dataDir, harness.secrets, ['export', 'requests', '--format', 'csv', '--out', file]);
    expect(run).toMatchObject({ exitCode: 1, stdout: '', stderr: `airlock: cannot write --out ${file}: its folder does not exist\n` });
  });

  it('requests as CSV on stdout, filtered by --since, --until and --status', async () => {
    // The CLI harness's clock stands in 2023; the requests were made now.
    const all = await runAirlock(harness.dataDir, harness.secrets, ['export', 'requests', '--format', 'csv', '--since', '2023-01-01']);
    expect(all.exitCode, all.stderr).toBe(0);
    expect((parse(all.stdout, { columns: true }) as Record<string, string>[]).map((record) => record.id)).toEqual(
      [...requestIds].reverse(),
    );
    const none = await runAirlock(harness.dataDir, harness.secrets, ['export', 'requests', '--format', 'csv', '--until', '2023-01-01']);
    expect(parse(none.stdout, { columns: true })).toEqual([]);
    const errors = await runAirlock(harness.dataDir, harness.secrets, ['export', 'requests', '--format', 'csv', '--status', 'error']);
    expect((parse(errors.stdout, { columns: true }) as Record<string, string>[]).map((record) => record.id)).toEqual([requestIds[2]]);
  });

  it('spend as CSV', async () => {
    const run = await runAirlock(harness.dataDir, harness.secrets, [
      'export',
      'spend',
      '--since',
      '2023-01-01',
      '--until',
      '2100-01-01',
      '--group-by',
      'client',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(parse(run.stdout, { columns: true })).toMatchObject([{ group_by: 'client', group: 'export-agent', requests: '4' }]);
  });

  it.each([
    [['export', 'requests', '--format', 'pdf'], /--format "pdf": use har or csv/],
    [['export', 'requests', '--format', 'csv', '--since', 'last week'], /--since "last week": give a duration back from now/],
    [['export', 'spend', '--group-by', 'hour'], /--group-by "hour": use model or profile or client or none/],
  ])('%j is a mistake in the command line (exit 2) with a message that says what to use', async (args, message) => {
    const run = await runAirlock(harness.dataDir, harness.secrets, args);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('says where to start when the data directory has no log', async () => {
    const run = await runAirlock(outDir, harness.secrets, ['export', 'spend']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/no request log in .*: start Airlock/);
  });
});
