import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TRANSLATION_THREAD_FAILURES, TranslationThread } from '../../../proxy/forward/translation/translationThreadClient.ts';
import { PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS } from '../../../proxy/contracts/defaults.ts';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

const ANTHROPIC_HEADERS = { ...JSON_HEADERS, 'anthropic-version': '2023-06-01' };

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** A Messages body with more keys than the forwarding loop may parse: it goes to the translation thread. */
function heavyMessagesBody(): string {
  const metadata: Record<string, number> = {};
  for (let index = 0; index < PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS; index += 1) metadata[`k${index}`] = index;
  return JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], metadata });
}

describe('a heavy body when the translation thread keeps dying', () => {
  it('is refused with a 503 in the Anthropic shape naming the failure, never translated on the forwarding loop, and nothing is sent', async () => {
    const failures: string[] = [];
    const translation = new TranslationThread({
      threadUrl: new URL('../forward/fixtures/crashingTranslationThread.ts', import.meta.url),
      onFailure: (reason) => failures.push(reason),
    });
    harness = await startHarness({ translation, profile: { protocolModes: { messages: 'translate', responses: 'translate' } } });
    const body = heavyMessagesBody();
    for (let attempt = 0; attempt <= MAX_TRANSLATION_THREAD_FAILURES; attempt += 1) {
      const answer = await rawRequest(`${harness.proxy.url}/v1/messages`, { method: 'POST', headers: ANTHROPIC_HEADERS, body });
      expect(answer.status, answer.body).toBe(503);
      const error = JSON.parse(answer.body) as { type: string; error: { type: string; message: string } };
      expect(error.type).toBe('error');
      expect(error.error.message).toMatch(/could not translate this request.*Nothing was sent to the gateway/);
      expect(answer.body).not.toContain(SENTINEL_KEY);
    }
    const ends = harness.events.filter((event) => event.type === 'end');
    expect(ends.map((end) => end.errorClass)).toEqual(Array(MAX_TRANSLATION_THREAD_FAILURES + 1).fill('translation_unavailable'));
    expect(ends.at(-1)?.errorMessage).toMatch(/stopped 3 times in a row/);
    expect(harness.simulator.received).toHaveLength(0);
  });
});
