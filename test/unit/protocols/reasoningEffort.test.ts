import { describe, expect, it } from 'vitest';
import { bytesWithoutReasoningEffort, refusesReasoningEffort } from '../../../proxy/protocols/chat/reasoningEffort.ts';

describe('a gateway refusing reasoning_effort', () => {
  // The refusals of test/simulator/dialects.ts (openai, litellm), and answers that are not one.
  it.each([
    [
      400,
      '{"error":{"message":"Unsupported parameter: \'reasoning_effort\' is not supported with this model.","param":"reasoning_effort"}}',
      true,
    ],
    [400, '{"error":{"message":"litellm.UnsupportedParamsError: openai does not support parameters: [\'reasoning_effort\']"}}', true],
    [400, '{"error":{"message":"This model\'s maximum context length is 8192 tokens."}}', false],
    [429, '{"error":{"message":"reasoning_effort requests are rate limited"}}', false],
    [500, 'reasoning_effort', false],
  ])('status %i with %s is a refusal: %s', (status, bodyText, refuses) => {
    expect(refusesReasoningEffort(status, bodyText)).toBe(refuses);
  });
});

describe('bytesWithoutReasoningEffort', () => {
  it.each([
    ['{"model":"m","stream":true,"reasoning_effort":"high"}', { body: '{"model":"m","stream":true}', effort: 'high' }],
    ['{"model":"m","reasoning_effort":"xhigh"}', { body: '{"model":"m"}', effort: 'xhigh' }],
    ['{"model":"m","messages":[{"role":"user","content":",\\"reasoning_effort\\":\\"x\\"}"}]}', null],
    ['{"model":"m","stream":true}', null],
    ['{"reasoning_effort":"high","model":"m"}', null],
  ])('%s without its trailing effort is %j', (sent, expected) => {
    const without = bytesWithoutReasoningEffort(Buffer.from(sent));
    expect(without === null ? null : { body: without.body.toString('utf8'), effort: without.effort }).toEqual(expected);
  });
});
