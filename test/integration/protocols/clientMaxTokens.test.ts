import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../simulator/index.ts';
import { DEFAULT_MODEL_IDS } from '../../simulator/models.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { sdkClients } from '../../support/reasoningHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * A chat client's own `max_tokens` to a model that takes only `max_completion_tokens` (OpenAI's
 * reasoning models, on OpenAI and on Azure: test/simulator/dialects.ts cites each). opencode sends
 * `max_tokens: 32000` with every request to an OpenAI-compatible provider (its request as recorded
 * in recordedClientRequests.test.ts), so through a gateway that passes the name on, every turn with
 * such a model was a 400, with Airlock as without it. The 400 ran nothing and cost nothing: Airlock
 * sends the request again with the key renamed on the client's bytes, the rest as the client wrote
 * it, and renames it for the model's later requests from the start.
 *
 * Checked on 2026-11-29 with the real opencode 1.18.33 (`opencode run "Say hi."`, its provider as
 * `airlock connect opencode` writes it) against the simulator's openai dialect, for gpt-5.1, o3 and
 * o4-mini: straight at the gateway both requests of a run (its title, then its turn, each with
 * `max_tokens: 32000`) were refused and opencode exited 1; through `airlock serve` it answered, and
 * the gateway got `max_tokens` once (the first title request, resent renamed), then only
 * `max_completion_tokens`: in that run, the next, and after Airlock restarted. A `small_model` for
 * the title is a second model, learned by its own first 400.
 */
/** Models taking only max_completion_tokens, one per test: what Airlock learns of one stays for the proxy's life. */
const REFUSING = ['gpt-5.1', 'o3', 'gpt-5-mini', 'o4-mini', 'gpt-5.2'] as const;

const RESENT_NOTE = 'resent with max_completion_tokens for max_tokens: the gateway refused max_tokens for this model (400)';
const SENT_NOTE = 'sent with max_completion_tokens for max_tokens: the gateway refused max_tokens for this model before (400)';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    simulator: {
      models: [...DEFAULT_MODEL_IDS, ...REFUSING],
      modelCapabilities: Object.fromEntries(REFUSING.map((model) => [model, { maxTokens: false }])),
    },
  });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const { openai } = sdkClients(() => harness);

/** opencode's chat request, its members as it sends them (it adds `reasoning_effort` for gpt-5 ids); the spaces are the test's, so a re-serialised body would show. */
function opencodeBody(model: string, extra = ''): string {
  return `{"model": "${model}", "max_tokens" : 32000,${extra} "tool_choice": "auto", "stream": true, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "Say hi."}]}`;
}

const turn = (body: string) =>
  rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'user-agent': 'opencode/1.18.33 ai-sdk/provider-utils/4.0.23 runtime/bun/1.3.14' },
    body,
  });

const sentBodies = (): string[] => harness.simulator.received.map((request) => request.body.toString('utf8'));

/** Every note of a request's row: those of its start (what planning changed) and of its end (what a resend did). */
function rowNotes(end: { requestId: string; logNotes?: string[] }): string[] {
  const start = harness.events.find((event) => event.type === 'start' && event.requestId === end.requestId);
  return [...(start?.type === 'start' ? start.notes : []), ...(end.logNotes ?? [])];
}

describe('where openai refuses max_tokens for the model', () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.openai));

  it("renames opencode's max_tokens on its own bytes after the 400, and at once for the model's next request", async () => {
    const body = opencodeBody(REFUSING[0]);
    const ended = harness.nextEnd();
    const first = await turn(body);
    expect(first.status).toBe(200);
    expect(first.body).toContain('data: [DONE]');
    // Only the key changed, and only where it stood: the rest is the client's bytes as sent.
    const renamed = body.replace('"max_tokens" :', '"max_completion_tokens":');
    expect(sentBodies()).toEqual([body, renamed]);
    const row = await ended;
    expect(row).toMatchObject({ status: 200, errorClass: null });
    expect(rowNotes(row)).toEqual([RESENT_NOTE]);

    const again = harness.nextEnd();
    expect((await turn(body)).status).toBe(200);
    expect(sentBodies()).toEqual([body, renamed, renamed]);
    expect(rowNotes(await again)).toEqual([SENT_NOTE]);
    for (const text of [first.body, JSON.stringify(row)]) expect(text).not.toContain(SENTINEL_KEY);
  });

  it("an OpenAI SDK script's request, not streamed, answered after the rename", async () => {
    const ended = harness.nextEnd();
    const answer = await openai().chat.completions.create({
      model: REFUSING[1],
      max_tokens: 500,
      messages: [{ role: 'user', content: 'Say hi.' }],
    });
    expect(answer.choices[0]?.finish_reason).toBe('stop');
    const bounds = sentBodies().map((text) => {
      const sent = JSON.parse(text) as Record<string, unknown>;
      return { max_tokens: sent['max_tokens'], max_completion_tokens: sent['max_completion_tokens'] };
    });
    expect(bounds).toEqual([
      { max_tokens: 500, max_completion_tokens: undefined },
      { max_tokens: undefined, max_completion_tokens: 500 },
    ]);
    expect(rowNotes(await ended)).toEqual([RESENT_NOTE]);
  });

  it('a body naming both bounds is not renamed (it would name one twice): the 400 is passed on', async () => {
    const ended = harness.nextEnd();
    const refused = await turn(opencodeBody(REFUSING[2], ' "max_completion_tokens": 100,'));
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('max_completion_tokens');
    expect(harness.simulator.received).toHaveLength(1);
    expect(rowNotes(await ended)).toEqual([]);
  });

  it('a max_tokens nested below the top level is no bound and is left alone', async () => {
    const body = `{"model":"${REFUSING[3]}","metadata":{"max_tokens":"5"},"messages":[{"role":"user","content":"Say hi."}]}`;
    expect((await turn(body)).status).toBe(200);
    expect(sentBodies()).toEqual([body]);
  });

  it('sends max_tokens as it is, once, to a model that takes it', async () => {
    const body = opencodeBody('gpt-4o-mini');
    const ended = harness.nextEnd();
    expect((await turn(body)).status).toBe(200);
    expect(sentBodies()).toEqual([body]);
    expect(rowNotes(await ended)).toEqual([]);
  });
});

describe('on a gateway that maps max_tokens itself (litellm)', () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.litellm));

  it("sends opencode's request once, as it came", async () => {
    const body = opencodeBody(REFUSING[4]);
    expect((await turn(body)).status).toBe(200);
    expect(sentBodies()).toEqual([body]);
  });
});
