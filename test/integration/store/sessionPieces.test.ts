import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BodyTextResponse, RequestPage } from '../../../proxy/contracts/requests.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { setUpMainProfileAndAgent, startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';

/**
 * A conversation through the real proxy is stored turn by turn as its new part (request bodies as
 * pieces, schema migration 9), and still reads back and searches as if each body were whole.
 */
let harness: ControlHarness;
let clientToken = '';

const call = <T>(path: string, init: RequestInit = {}): Promise<T> => harness.json<T>(path, init);

/** Prose a masker leaves alone (random-looking text could be taken for a key). */
const prose = (label: string, sentences: number): string =>
  `${label} `.concat('the agent read the file and explained it. '.repeat(sentences));

/** Sends one turn as its exact text and returns the id of the request it logged. */
async function send(path: string, text: string): Promise<string> {
  const before = new Set((await call<RequestPage>('/requests?limit=500')).items.map((item) => item.id));
  const response = await rawRequest(`${harness.proxy.url}${path}`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${clientToken}` },
    body: text,
  });
  expect(response.status).toBe(200);
  await harness.log.flush();
  const added = (await call<RequestPage>('/requests?limit=500')).items.filter((item) => !before.has(item.id));
  expect(added).toHaveLength(1);
  return added[0]?.id ?? '';
}

async function searched(text: string): Promise<string[]> {
  const page = await call<RequestPage>(`/requests?limit=500&text=${encodeURIComponent(text)}`);
  return page.items.map((item) => item.id).sort();
}

function withLogDb<T>(read: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(join(harness.dataDir, DATABASE_FILE_NAME), { readOnly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const TURNS = 12;
/** Each turn's exact request text and its logged id, in order. */
const turns: Array<{ text: string; id: string }> = [];
/** Anthropic Messages and Responses turns, in the order sent. */
const otherShapes: Array<{ text: string; id: string }> = [];

beforeAll(async () => {
  harness = await startControlHarness();
  clientToken = await setUpMainProfileAndAgent(harness);

  const tools = Array.from({ length: 6 }, (_, index) => ({
    type: 'function',
    function: { name: `tool_${index}`, description: prose(`tool ${index}`, 40), parameters: { type: 'object' } },
  }));
  const messages: Array<Record<string, unknown>> = [{ role: 'system', content: prose('system prompt', 60) }];
  for (let turn = 1; turn <= TURNS; turn += 1) {
    messages.push({ role: 'user', content: prose(`QUESTION-${turn}`, turn === 1 ? 5 : 30) });
    // From turn 7 on the client rewrites the first question (as a compacting agent does).
    if (turn === 7) messages[1] = { role: 'user', content: prose('REWRITTEN-FIRST-QUESTION', 5) };
    const body = { model: 'gpt-4o-mini', messages, tools, temperature: 0.2 };
    // Turn 5 is pretty-printed and turn 9 puts its keys in another order: stored text is what was sent.
    const text =
      turn === 5
        ? JSON.stringify(body, null, 2)
        : turn === 9
          ? JSON.stringify({ temperature: 0.2, tools, messages, model: 'gpt-4o-mini' })
          : JSON.stringify(body);
    turns.push({ text, id: await send('/v1/chat/completions', text) });
    messages.push({ role: 'assistant', content: prose(`ANSWER-${turn}`, 20) });
  }
  // Claude Code's and Codex's shapes, three turns each: the cache marker moves to the last block.
  const anthropic: Array<{ role: string; content: Array<Record<string, unknown>> }> = [];
  const responses: Array<Record<string, unknown>> = [];
  for (let turn = 1; turn <= 3; turn += 1) {
    for (const message of anthropic) for (const block of message.content) delete block.cache_control;
    anthropic.push({
      role: 'user',
      content: [{ type: 'text', text: prose(`MESSAGES-${turn}`, 30), cache_control: { type: 'ephemeral' } }],
    });
    const messagesText = JSON.stringify({
      model: 'gpt-4o-mini',
      max_tokens: 100,
      system: [{ type: 'text', text: prose('claude system', 40) }],
      messages: anthropic,
    });
    otherShapes.push({ text: messagesText, id: await send('/v1/messages', messagesText) });
    anthropic.push({ role: 'assistant', content: [{ type: 'text', text: prose(`MESSAGES-REPLY-${turn}`, 10) }] });

    responses.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: prose(`RESPONSES-${turn}`, 30) }] });
    const responsesText = JSON.stringify({
      model: 'gpt-4o-mini',
      instructions: prose('codex instructions', 40),
      input: responses,
      store: false,
    });
    otherShapes.push({ text: responsesText, id: await send('/v1/responses', responsesText) });
    responses.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: prose(`RESPONSES-REPLY-${turn}`, 10) }] });
  }
}, 120_000);

afterAll(async () => {
  await harness?.close();
});

describe('a conversation through the proxy', () => {
  it("shows each turn's full request body exactly as sent, in each protocol's shape", async () => {
    expect(otherShapes).toHaveLength(6);
    for (const { text, id } of [...turns, ...otherShapes]) {
      const body = await call<BodyTextResponse>(`/requests/${id}/body/request`);
      expect(body).toEqual({ text, truncated: false });
    }
  });

  it("stores each turn's new part only: the pieces hold a fraction of what the bodies repeat", () => {
    const sentBytes = [...turns, ...otherShapes].reduce((sum, { text }) => sum + Buffer.byteLength(text), 0);
    const stored = withLogDb((db) => ({
      pieceBytes: Number(db.prepare('SELECT TOTAL(stored_bytes) AS total FROM body_chunks').get()?.total),
      wholeBodies: Number(db.prepare('SELECT COUNT(*) AS count FROM request_bodies WHERE request_body IS NOT NULL').get()?.count),
      lists: Number(db.prepare('SELECT COUNT(*) AS count FROM request_body_chunk_lists').get()?.count),
    }));
    expect(stored.wholeBodies).toBe(0);
    expect(stored.lists).toBe(TURNS + otherShapes.length);
    // The last turn alone is about a fifth of all the text sent; every turn's new part, the
    // pretty-printed and reordered turns (stored whole once more) included, stays under half.
    expect(stored.pieceBytes).toBeLessThan(sentBytes / 2);
    expect(stored.pieceBytes).toBeGreaterThan(Buffer.byteLength(turns.at(-1)?.text ?? ''));
    expect(stored.wholeBodies).toBe(0);
  });

  it('finds text of any turn in every request whose body holds it, waiting for the full-text index or in it', async () => {
    const ids = turns.map((turn) => turn.id).sort();
    const fromTurn = (first: number, last = TURNS): string[] =>
      turns
        .slice(first - 1, last)
        .map((turn) => turn.id)
        .sort();
    const expectations = async (): Promise<void> => {
      expect(await searched('system prompt the agent')).toEqual(ids);
      expect(await searched('QUESTION-3 the agent')).toEqual(fromTurn(3));
      expect(await searched('ANSWER-2 the')).toEqual(fromTurn(3));
      // The rewritten first question: the original until turn 6, the new text from turn 7.
      expect(await searched('QUESTION-1 the agent')).toEqual(fromTurn(1, 6));
      expect(await searched('REWRITTEN-FIRST-QUESTION')).toEqual(fromTurn(7));
      expect(await searched('tool 5 the agent')).toEqual(ids);
      expect(await searched('MESSAGES-1 the agent')).toEqual(
        [otherShapes[0], otherShapes[2], otherShapes[4]].map((turn) => turn?.id).sort(),
      );
      expect(await searched('RESPONSES-2 the agent')).toEqual([otherShapes[3], otherShapes[5]].map((turn) => turn?.id).sort());
    };
    await expectations();
    await expect
      .poll(() => withLogDb((db) => Number(db.prepare('SELECT COUNT(*) AS count FROM body_chunks_unindexed').get()?.count)))
      .toBe(0);
    await expectations();
  });
});
