import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../simulator/index.ts';
import { DEFAULT_MODEL_IDS } from '../../simulator/models.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { sdkClients } from '../../support/reasoningHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Claude Code's `max_tokens` and Codex's `max_output_tokens` reach a chat gateway as chat's
 * `max_tokens`. OpenAI's reasoning models (o1, o3, gpt-5.x), on OpenAI and on Azure, take only
 * `max_completion_tokens` and refuse the request with a 400 naming `max_tokens`; LiteLLM maps the
 * name itself (test/simulator/dialects.ts, gatewayErrors.ts cite each). After such a 400, which ran
 * nothing and cost nothing, Airlock sends the request again with the bound renamed, and writes the
 * model's later requests with `max_completion_tokens` from the start.
 */
/** Models taking only max_completion_tokens, one per test: what Airlock learns of one stays for the proxy's life. */
const REFUSING = ['gpt-5.1', 'gpt-5.1-codex', 'o3', 'o4-mini', 'gpt-5-mini', 'gpt-5-nano', 'o1', 'gpt-5.2', 'gpt-5.4'] as const;
/** Refuses max_tokens and reasoning_effort both. */
const REFUSING_BOTH = 'o1-mini';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    simulator: {
      models: [...DEFAULT_MODEL_IDS, ...REFUSING, REFUSING_BOTH],
      modelCapabilities: {
        ...Object.fromEntries(REFUSING.map((model) => [model, { maxTokens: false }])),
        [REFUSING_BOTH]: { maxTokens: false, reasoningEffort: false },
      },
    },
  });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const { anthropic, openai } = sdkClients(() => harness);

/** The output bound's member of each chat request the gateway got, in order: its name and value. */
function sentBounds(): Array<Record<string, unknown>> {
  return harness.simulator.received.map((request) => {
    const body = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(body).filter(([name]) => name === 'max_tokens' || name === 'max_completion_tokens'));
  });
}

const RENAMED_NOTE = 'resent with max_completion_tokens for max_tokens: the gateway refused max_tokens for this model (400)';
const messages = [{ role: 'user' as const, content: 'Say hi.' }];

/** One turn of Claude Code (Messages) or Codex (Responses), streamed or not: what the client got, as text. */
async function turn(protocol: 'messages' | 'responses', stream: boolean, model: string): Promise<string> {
  if (protocol === 'messages') {
    const request = { model, max_tokens: 16_000, messages };
    const answer = stream ? await anthropic().messages.stream(request).finalMessage() : await anthropic().messages.create(request);
    expect(answer.stop_reason).toBe('end_turn');
    return JSON.stringify(answer);
  }
  const request = { model, input: 'Say hi.', max_output_tokens: 16_000, store: false };
  const answer = stream ? await openai().responses.stream(request).finalResponse() : await openai().responses.create(request);
  expect(answer.status).toBe('completed');
  return JSON.stringify(answer);
}

describe('where openai refuses max_tokens for a model', () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.openai));

  it.each([
    ['messages', false, REFUSING[0]],
    ['messages', true, REFUSING[1]],
    ['responses', false, REFUSING[2]],
    ['responses', true, REFUSING[3]],
  ] as const)(
    'takes a %s request (stream: %s) again with max_completion_tokens, and sends the later ones so at once',
    async (protocol, stream, model) => {
      const ended = harness.nextEnd();
      const first = await turn(protocol, stream, model);
      expect(sentBounds()).toEqual([{ max_tokens: 16_000 }, { max_completion_tokens: 16_000 }]);
      const row = await ended;
      expect(row.status).toBe(200);
      expect(row.logNotes).toEqual([RENAMED_NOTE]);

      const again = harness.nextEnd();
      const second = await turn(protocol, stream, model);
      expect(sentBounds()).toEqual([{ max_tokens: 16_000 }, { max_completion_tokens: 16_000 }, { max_completion_tokens: 16_000 }]);
      expect((await again).logNotes ?? []).toEqual([]);
      for (const text of [first, second, JSON.stringify(row)]) expect(text).not.toContain(SENTINEL_KEY);
    },
  );

  // A body too large to parse on the forwarding loop is translated on its thread: renamed there from the start too.
  it('renames a long session translated off the loop, and writes its next request so there', async () => {
    const long = [{ role: 'user' as const, content: 'x'.repeat(600 * 1024) }];
    const request = { model: REFUSING[8], max_tokens: 16_000, messages: long };
    expect((await anthropic().messages.create(request)).stop_reason).toBe('end_turn');
    expect((await anthropic().messages.create(request)).stop_reason).toBe('end_turn');
    expect(sentBounds()).toEqual([{ max_tokens: 16_000 }, { max_completion_tokens: 16_000 }, { max_completion_tokens: 16_000 }]);
  });

  it('sends max_tokens as it is to a model that takes it', async () => {
    const ended = harness.nextEnd();
    await turn('messages', false, 'gpt-4o-mini');
    expect(sentBounds()).toEqual([{ max_tokens: 16_000 }]);
    expect((await ended).logNotes ?? []).toEqual([]);
  });

  it('renames it, then leaves out the reasoning_effort a second 400 refuses, and remembers both', async () => {
    const codexTurn = () =>
      openai()
        .responses.stream({ model: REFUSING_BOTH, input: 'Say hi.', max_output_tokens: 500, reasoning: { effort: 'high' }, store: false })
        .finalResponse();
    const ended = harness.nextEnd();
    expect((await codexTurn()).status).toBe('completed');
    const sent = () => harness.simulator.received.map((request) => Object.keys(JSON.parse(request.body.toString('utf8'))));
    expect(sent().map((names) => names.filter((name) => name.startsWith('max_') || name === 'reasoning_effort'))).toEqual([
      ['max_tokens', 'reasoning_effort'],
      ['max_completion_tokens', 'reasoning_effort'],
      ['max_completion_tokens'],
    ]);
    expect((await ended).logNotes).toEqual([RENAMED_NOTE, 'resent without reasoning_effort: the gateway refused it for this model (400)']);

    expect((await codexTurn()).status).toBe('completed');
    expect(sent()).toHaveLength(4);
    expect(sent()[3]).toContain('max_completion_tokens');
    expect(sent()[3]).not.toContain('reasoning_effort');
  });
});

/** OpenAI's error body (test/simulator/gatewayErrors.ts words it alike). */
const openAiError = (message: string, param: string | null, code: string | null) => ({
  error: { message, type: 'invalid_request_error', param, code },
});

describe('a 400 that is not a refusal of max_tokens', () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.openai));

  /** Claude Code's turn as raw HTTP, not streamed: the client's answer, whatever its status. */
  function rawTurn(model: string) {
    const body = JSON.stringify({ model, max_tokens: 16_000, messages });
    return rawRequest(`${harness.proxy.url}/v1/messages`, { method: 'POST', headers: JSON_HEADERS, body });
  }

  it('max_tokens too large for the model: passed on, nothing resent, max_tokens kept', async () => {
    const model = 'qwen-plus';
    harness.simulator.script({
      kind: 'status',
      status: 400,
      body: openAiError(
        'max_tokens is too large: 16000. This model supports at most 8192 completion tokens, whereas you provided 16000.',
        'max_tokens',
        null,
      ),
    });
    const ended = harness.nextEnd();
    const refused = await rawTurn(model);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('too large');
    expect((await ended).logNotes ?? []).toEqual([]);
    expect(sentBounds()).toEqual([{ max_tokens: 16_000 }]);
  });

  it('refused again renamed: the second answer is passed on, and max_tokens is not remembered as refused', async () => {
    const model = REFUSING[4];
    const refusal = openAiError(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'max_tokens',
      'unsupported_parameter',
    );
    const tooLong = openAiError("This model's maximum context length is 400000 tokens.", 'messages', 'context_length_exceeded');
    harness.simulator.script({ kind: 'status', status: 400, body: refusal }, { kind: 'status', status: 400, body: tooLong });
    const ended = harness.nextEnd();
    const refused = await rawTurn(model);
    expect(sentBounds()).toEqual([{ max_tokens: 16_000 }, { max_completion_tokens: 16_000 }]);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('maximum context length');
    const row = await ended;
    expect(row.logNotes ?? []).not.toContain(RENAMED_NOTE);
    expect(row.logNotes?.join(' ')).toMatch(/refused again/);

    // Not remembered: the model's next request goes with max_tokens, is refused, and is renamed again.
    await turn('messages', false, model);
    expect(sentBounds().slice(2)).toEqual([{ max_tokens: 16_000 }, { max_completion_tokens: 16_000 }]);
  });
});

describe('on a gateway that maps max_tokens itself (litellm)', () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.litellm));

  it.each([
    ['messages', true, REFUSING[5]],
    ['responses', false, REFUSING[6]],
  ] as const)('sends a %s request (stream: %s) once, with max_tokens', async (protocol, stream, model) => {
    const ended = harness.nextEnd();
    await turn(protocol, stream, model);
    expect(sentBounds()).toEqual([{ max_tokens: 16_000 }]);
    expect((await ended).logNotes ?? []).toEqual([]);
  });
});
