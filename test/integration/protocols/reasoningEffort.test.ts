import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../simulator/index.ts';
import { DEFAULT_MODEL_IDS } from '../../simulator/models.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { sdkClients } from '../../support/reasoningHarness.ts';

/**
 * The effort a Codex or Claude Code user picks reaches a chat gateway as `reasoning_effort`. A
 * model that does not take it is refused with a 400 naming it by OpenAI and by LiteLLM without
 * drop_params, and the parameter is ignored by OpenRouter (test/simulator/dialects.ts cites each):
 * after such a 400, which ran nothing and cost nothing, Airlock sends the request again without
 * the parameter and leaves it out of that model's later requests.
 */
const REASONING_MODEL = 'deepseek-chat';
/** Models without reasoning, one per test: what Airlock learns of one stays for the proxy's life. */
const WITHOUT_EFFORT = { openai: 'gpt-4o-mini', litellm: 'qwen-vl-max', openrouter: 'qwen-plus', claudeCode: 'claude-sonnet-4-5' };
/** A reasoning model whose highest level is `high` (OpenAI's models before gpt-5.1-codex-max refuse `xhigh`). */
const MODEL_WITHOUT_XHIGH = 'glm-4.6';
/** Reasoning models the gateway answers 400 for another reason, one per test. */
const MODELS_REFUSED_OTHERWISE = ['gpt-5-mini', 'gpt-5-nano'];

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    simulator: {
      models: [...DEFAULT_MODEL_IDS, ...MODELS_REFUSED_OTHERWISE],
      modelCapabilities: {
        ...Object.fromEntries(Object.values(WITHOUT_EFFORT).map((model) => [model, { reasoningEffort: false }])),
        [REASONING_MODEL]: { reasoning: true },
        [MODEL_WITHOUT_XHIGH]: { reasoningEffortLevels: ['low', 'medium', 'high'] },
      },
    },
  });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const { anthropic, openai } = sdkClients(() => harness);

/** The `reasoning_effort` of each chat request the gateway got, in order (undefined: not sent). */
function sentEfforts(): unknown[] {
  return harness.simulator.received.map(
    (request) => (JSON.parse(request.body.toString('utf8')) as Record<string, unknown>)['reasoning_effort'],
  );
}

async function codexTurn(model: string, effort: 'high' | 'xhigh' = 'high'): Promise<string> {
  const stream = openai().responses.stream({ model, input: 'Say hi.', reasoning: { effort }, store: false });
  return (await stream.finalResponse()).status ?? 'none';
}

describe.each([
  ['openai', DIALECTS.openai, WITHOUT_EFFORT.openai],
  ['litellm', DIALECTS.litellm, WITHOUT_EFFORT.litellm],
])('where %s refuses reasoning_effort for a model', (_name, dialect, model) => {
  beforeAll(() => harness.simulator.useDialect(dialect));

  it("takes Codex's request again without it, and leaves it out of the model's later requests", async () => {
    const ended = harness.nextEnd();
    expect(await codexTurn(model)).toBe('completed');
    expect(sentEfforts()).toEqual(['high', undefined]);
    const row = await ended;
    expect(row.status).toBe(200);
    expect(row.logNotes).toEqual(['resent without reasoning_effort: the gateway refused it for this model (400)']);

    expect(await codexTurn(model)).toBe('completed');
    expect(sentEfforts()).toEqual(['high', undefined, undefined]);
  });

  it('still sends it for a model that takes it', async () => {
    expect(await codexTurn(REASONING_MODEL)).toBe('completed');
    expect(sentEfforts()).toEqual(['high']);
  });
});

describe('where openai refuses a level of reasoning_effort the model does not have', () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.openai));

  it('leaves out only that level from the later requests, and still sends the others', async () => {
    expect(await codexTurn(MODEL_WITHOUT_XHIGH, 'xhigh')).toBe('completed');
    expect(await codexTurn(MODEL_WITHOUT_XHIGH, 'high')).toBe('completed');
    expect(await codexTurn(MODEL_WITHOUT_XHIGH, 'xhigh')).toBe('completed');
    expect(sentEfforts()).toEqual(['xhigh', undefined, 'high', undefined]);
  });
});

/** A Codex turn as raw HTTP, not streamed: the client's answer, whatever its status. */
function rawCodexTurn(model: string) {
  const body = JSON.stringify({ model, input: 'Say hi.', reasoning: { effort: 'high' }, store: false });
  return rawRequest(`${harness.proxy.url}/v1/responses`, { method: 'POST', headers: JSON_HEADERS, body });
}

/** OpenAI's error body (test/simulator/gatewayErrors.ts words it alike). */
const openAiError = (message: string, param: string | null, code: string | null) => ({
  error: { message, type: 'invalid_request_error', param, code },
});

describe('a 400 that is not a refusal of reasoning_effort', () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.openai));

  it('naming it only among the parameters the model takes: passed on, nothing resent, the effort kept', async () => {
    const model = MODELS_REFUSED_OTHERWISE[0]!;
    harness.simulator.script({
      kind: 'status',
      status: 400,
      body: openAiError(
        "Unsupported parameter: 'logit_bias'. Supported parameters are: model, messages, max_completion_tokens, reasoning_effort, stream.",
        'logit_bias',
        'unsupported_parameter',
      ),
    });
    const ended = harness.nextEnd();
    const refused = await rawCodexTurn(model);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('logit_bias');
    expect((await ended).logNotes ?? []).toEqual([]);
    expect(sentEfforts()).toEqual(['high']);

    expect(await codexTurn(model)).toBe('completed');
    expect(sentEfforts()).toEqual(['high', 'high']);
  });

  it('refused again without it: the second answer is passed on, and the effort is not remembered as refused', async () => {
    const model = MODELS_REFUSED_OTHERWISE[1]!;
    const refusal = openAiError(
      "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
      'reasoning_effort',
      'unsupported_parameter',
    );
    const tooLong = openAiError("This model's maximum context length is 400000 tokens.", 'messages', 'context_length_exceeded');
    harness.simulator.script({ kind: 'status', status: 400, body: refusal }, { kind: 'status', status: 400, body: tooLong });
    const ended = harness.nextEnd();
    const refused = await rawCodexTurn(model);
    expect(sentEfforts()).toEqual(['high', undefined]);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('maximum context length');
    const row = await ended;
    expect(row.logNotes ?? []).not.toContain('resent without reasoning_effort: the gateway refused it for this model (400)');
    expect(row.logNotes?.join(' ')).toMatch(/refused again/);

    expect(await codexTurn(model)).toBe('completed');
    expect(sentEfforts()).toEqual(['high', undefined, 'high']);
  });
});

describe('on a gateway that ignores a reasoning_effort its model does not take (openrouter)', () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.openrouter));

  it("sends Codex's effort once, as it is", async () => {
    expect(await codexTurn(WITHOUT_EFFORT.openrouter)).toBe('completed');
    expect(sentEfforts()).toEqual(['high']);
  });
});

describe("Claude Code's thinking budget", () => {
  beforeAll(() => harness.simulator.useDialect(DIALECTS.openai));

  const thinking = { type: 'enabled' as const, budget_tokens: 20_000 };
  const messages = [{ role: 'user' as const, content: 'Say hi.' }];

  it.each([
    [REASONING_MODEL, ['high']],
    [WITHOUT_EFFORT.claudeCode, ['high', undefined]],
  ])('for %s goes as reasoning_effort (sent %j)', async (model, efforts) => {
    const answer = await anthropic().messages.stream({ model, max_tokens: 32_000, thinking, messages }).finalMessage();
    expect(answer.stop_reason).toBe('end_turn');
    expect(sentEfforts()).toEqual(efforts);
  });
});
