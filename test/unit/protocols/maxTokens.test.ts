import { describe, expect, it } from 'vitest';
import { outputBoundMember, refusesMaxTokens } from '../../../proxy/protocols/chat/maxTokens.ts';

/** OpenAI's error body, as the simulator's gatewayErrors.ts words it. */
const openAiError = (message: string, param: string | null, code: string | null): string =>
  JSON.stringify({ error: { message, type: 'invalid_request_error', param, code } });

const OPENAI_WORDS = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";

describe('a gateway refusing max_tokens', () => {
  it.each<[string, number, string, boolean]>([
    // OpenAI for o1, o3, gpt-5.x (griptape-ai/ComfyUI-Griptape#312), Azure's gpt-5.1 alike (anomalyco/opencode#37964).
    ['OpenAI: the parameter unsupported (param named)', 400, openAiError(OPENAI_WORDS, 'max_tokens', 'unsupported_parameter'), true],
    ['the param and its code alone', 400, openAiError('Unsupported parameter.', 'max_tokens', 'unsupported_parameter'), true],
    // A relay passing it on in its own shape: no param, its own code (caozhiyuan/copilot-api#164).
    ["a relay's body with OpenAI's words", 400, JSON.stringify({ error: { message: OPENAI_WORDS, code: 'invalid_request_body' } }), true],
    ["OpenAI's words in plain text", 400, OPENAI_WORDS, true],
    ['unsupported, bare name', 400, openAiError('max_tokens is unsupported for this model; use max_completion_tokens', null, null), true],
    // Not refusals of the name.
    ['another status', 422, openAiError(OPENAI_WORDS, 'max_tokens', 'unsupported_parameter'), false],
    [
      'max_tokens too large for the model (param named, no unsupported code)',
      400,
      openAiError(
        'max_tokens is too large: 200000. This model supports at most 128000 completion tokens, whereas you provided 200000.',
        'max_tokens',
        null,
      ),
      false,
    ],
    [
      'another parameter unsupported, max_tokens listed among the accepted ones',
      400,
      openAiError(
        "Unsupported parameter: 'logit_bias'. Supported parameters are: model, messages, max_tokens, max_completion_tokens.",
        'logit_bias',
        'unsupported_parameter',
      ),
      false,
    ],
    [
      'the other way round: max_completion_tokens refused, max_tokens asked for',
      400,
      openAiError(
        "Unsupported parameter: 'max_completion_tokens' is not supported with this model. Use 'max_tokens' instead.",
        'max_completion_tokens',
        'unsupported_parameter',
      ),
      false,
    ],
    [
      'unsupported without naming max_completion_tokens',
      400,
      openAiError("Unsupported parameter: 'max_tokens' is not supported with this model.", null, null),
      false,
    ],
    [
      'an error about the context quoting the request',
      400,
      openAiError(
        'This model\'s maximum context length is 128000 tokens. Request: {"max_tokens":4096,"model":"gpt-5"} (max_completion_tokens unset)',
        'messages',
        'context_length_exceeded',
      ),
      false,
    ],
    ['a 400 without the name', 400, openAiError('Invalid value for messages.', 'messages', 'invalid_value'), false],
  ])('%s: %s', (_what, status, body, refusal) => {
    expect(refusesMaxTokens(status, body)).toBe(refusal);
  });
});

describe('the output bound as the chat body writes it', () => {
  it('goes first, under max_tokens unless the gateway refused it for the model, and not at all when there is none', () => {
    expect(Object.keys({ ...outputBoundMember(4096, false), model: 'm' })).toEqual(['max_tokens', 'model']);
    expect({ ...outputBoundMember(4096, true), model: 'm' }).toEqual({ max_completion_tokens: 4096, model: 'm' });
    expect(outputBoundMember(null, true)).toEqual({});
  });
});
