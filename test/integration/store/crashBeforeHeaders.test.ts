import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
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
import { untilLogShows } from '../../support/logFileWrites.ts';

/**
 * Airlock killed while requests wait for the gateway's first byte. The gateway had each prompt and
 * bills it when its client is gone before the answer (novita.ai/docs/guides/llm-billing bills a
 * 499; new-api bills its prompt estimate on client_gone, QuantumNous/new-api#4167), so the next
 * start counts each one's estimated input toward the caps, as the live path counts such an attempt.
 */
const INPUT_PER_1M = 1_000;
/** 1 credit per 1,000 input tokens. */
const PRICES = [{ model: 'gpt-4o-mini', inputPer1M: INPUT_PER_1M, outputPer1M: 1_000 }];
const PROMPT = 'Describe the lighthouse lens. '.repeat(400);
/** Below what either request's input is estimated at. */
const DAILY_CAP_CREDITS = 0.5;

let simulator: GatewaySimulator;
let dataDir: string;
let running: AirlockChild | null = null;
let releaseGateway: () => void = () => undefined;
let stopWatching: () => void = () => undefined;
beforeEach(async () => {
  simulator = await startGatewaySimulator();
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-crash-before-headers-'));
});
afterEach(async () => {
  if (running !== null) {
    process.kill(running.pid, 'SIGKILL');
    await running.exited;
    running = null;
  }
  stopWatching();
  releaseGateway();
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function readRows(): Array<Record<string, unknown>> {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE_NAME), { readOnly: true });
  try {
    return db.prepare('SELECT stream, state, status, usage_source, input_tokens, output_tokens, cost_credits, notes FROM requests').all();
  } catch {
    // Not created yet: the log makes its tables at its first write.
    return [];
  } finally {
    db.close();
  }
}

/** Resolves once `count` in-flight rows carry a cost, checking at each write to the log. */
function rowsCosted(count: number): Promise<void> {
  const waiting = untilLogShows(
    dataDir,
    () => readRows().filter((row) => row.state === 'in_flight' && Number(row.cost_credits) > 0).length >= count,
  );
  stopWatching = waiting.stop;
  return waiting.shown;
}

function sendAndForget(port: number, headers: Record<string, string>, body: string): void {
  const client = request(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers });
  // Airlock is killed under it.
  client.on('error', () => undefined);
  client.end(body);
}

describe('kill -9 while requests wait for the gateway’s first byte', () => {
  it('the next start marks them interrupted with their estimated input, labelled, and counts it toward the caps', async () => {
    const token = generateToken();
    running = await startAirlockChild({ dataDir, upstreamBaseUrl: simulator.baseUrl, clientToken: token, profile: { prices: PRICES } });
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${token}` };
    const held = [simulator.holdNext('/v1/chat/completions'), simulator.holdNext('/v1/chat/completions')];
    releaseGateway = () => {
      for (const request of held) request.release();
    };
    const messages = [{ role: 'user', content: PROMPT }];
    sendAndForget(running.port, headers, chatBody({ messages }));
    sendAndForget(running.port, headers, chatBody({ messages, stream: true }));
    // The log is read only once both are at the gateway: each read of it wakes the watcher again.
    await Promise.all(held.map((request) => request.arrived));
    await rowsCosted(2);

    process.kill(running.pid, 'SIGKILL');
    await running.exited;
    running = null;
    expect(simulator.received).toHaveLength(2);

    const store = openConfigStore(dataDir);
    await store.update((config) => updateProfile(config, 'main', { budget: { dailyCredits: DAILY_CAP_CREDITS } }));
    store.close();
    running = await startAirlockChild({ dataDir, upstreamBaseUrl: simulator.baseUrl, clientToken: token });
    const rows = readRows();
    expect(rows.map((row) => row.stream).sort()).toEqual([0, 1]);
    for (const row of rows) {
      expect(row).toMatchObject({ state: 'interrupted', status: null, usage_source: 'estimated', output_tokens: 0 });
      expect(Number(row.input_tokens)).toBeGreaterThan(0);
      expect(Number(row.cost_credits)).toBeCloseTo((Number(row.input_tokens) * INPUT_PER_1M) / 1e6, 12);
      expect(Number(row.cost_credits)).toBeGreaterThan(DAILY_CAP_CREDITS);
      expect(String(row.notes)).toMatch(/May be billed: the gateway had the prompt/);
    }

    const refused = await rawRequest(`http://127.0.0.1:${running.port}/v1/chat/completions`, { method: 'POST', headers, body: chatBody() });
    expect(refused.status, refused.body).toBe(402);
    expect(JSON.parse(refused.body).error.code).toBe('budget_exceeded');
    expect(simulator.received).toHaveLength(2);
  }, 60_000);
});
