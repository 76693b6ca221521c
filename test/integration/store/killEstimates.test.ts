import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateToken } from '../../../proxy/http/clientTokens.ts';
import { updateProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { startAirlockChild, type AirlockChild } from '../../support/airlockChild.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { hasChatText, openStream } from '../../support/openStream.ts';
import { untilLogShows } from '../../support/logFileWrites.ts';

const STREAMS = 50;
const LONG_REPLY = 'a long answer '.repeat(1_000);
/** 1 credit per 1,000 tokens: each stream's input alone is estimated at a few hundredths of a credit. */
const PRICES = [{ model: 'gpt-4o-mini', inputPer1M: 1_000, outputPer1M: 1_000 }];
/** Below what 50 streams' estimates add up to, input alone. */
const DAILY_CAP_CREDITS = 1;

let simulator: GatewaySimulator;
let dataDir: string;
let running: AirlockChild | null = null;
beforeEach(async () => {
  simulator = await startGatewaySimulator({ streamChunkCount: 400, streamChunkIntervalMs: 50 });
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-kill-estimates-'));
});
afterEach(async () => {
  if (running !== null) {
    process.kill(running.pid, 'SIGKILL');
    await running.exited;
    running = null;
  }
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function readRows(): Array<Record<string, unknown>> {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE_NAME), { readOnly: true });
  try {
    return db.prepare('SELECT state, usage_source, input_tokens, output_tokens, cost_credits FROM requests').all();
  } finally {
    db.close();
  }
}

function rowsWithEstimatesNow(): number {
  return readRows().filter((row) => row.state === 'in_flight' && Number(row.cost_credits) > 0 && Number(row.output_tokens) > 0).length;
}

/** Resolves once every stream's in-flight row carries an estimate, checking at each write to the log. */
function allRowsEstimated(): Promise<void> {
  return untilLogShows(dataDir, () => rowsWithEstimatesNow() >= STREAMS).shown;
}

describe('kill -9 during 50 streams', () => {
  it('leaves each interrupted row an estimated usage and cost, which the next start counts against the budget', async () => {
    const token = generateToken();
    running = await startAirlockChild({ dataDir, upstreamBaseUrl: simulator.baseUrl, clientToken: token, profile: { prices: PRICES } });
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${token}` };
    simulator.script(...Array.from({ length: STREAMS }, () => ({ kind: 'reply' as const, content: LONG_REPLY })));
    const streams = Array.from({ length: STREAMS }, () =>
      openStream(`http://127.0.0.1:${running!.port}/v1/chat/completions`, headers, chatBody({ stream: true }), hasChatText(2)),
    );
    await Promise.all(streams.map((stream) => stream.started));
    await allRowsEstimated();
    expect(rowsWithEstimatesNow()).toBe(STREAMS);

    process.kill(running.pid, 'SIGKILL');
    await running.exited;
    running = null;
    await Promise.all(streams.map((stream) => stream.outcome));

    const store = openConfigStore(dataDir);
    await store.update((config) => updateProfile(config, 'main', { budget: { dailyCredits: DAILY_CAP_CREDITS } }));
    store.close();
    running = await startAirlockChild({ dataDir, upstreamBaseUrl: simulator.baseUrl, clientToken: token });
    const rows = readRows();
    expect(rows).toHaveLength(STREAMS);
    let estimatedCredits = 0;
    for (const row of rows) {
      expect(row).toMatchObject({ state: 'interrupted', usage_source: 'estimated' });
      expect(Number(row.input_tokens)).toBeGreaterThan(0);
      expect(Number(row.output_tokens)).toBeGreaterThan(0);
      estimatedCredits += Number(row.cost_credits);
    }
    expect(estimatedCredits).toBeGreaterThan(DAILY_CAP_CREDITS);

    simulator.reset();
    const refused = await rawRequest(`http://127.0.0.1:${running.port}/v1/chat/completions`, { method: 'POST', headers, body: chatBody() });
    expect(refused.status, refused.body).toBe(402);
    expect(JSON.parse(refused.body).error.code).toBe('budget_exceeded');
    expect(simulator.received).toHaveLength(0);
  }, 60_000);
});
