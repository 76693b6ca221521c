import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { statusForClass } from '../../../proxy/core/errorClass.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';

/**
 * A 200 whose body is not JSON on an endpoint that answers JSON is the wrong address answering (a
 * maintenance page, a website's text), never a success: the client gets the wrong-base-URL error
 * in its own protocol's shape, with what the gateway said.
 */
let harness: Harness;
const WRONG_ADDRESS_STATUS = statusForClass('html_instead_of_json');

beforeAll(async () => {
  harness = await startHarness({ profile: { modelRoutes: [{ pattern: 'claude-*', target: 'gpt-4o-mini' }] } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

const MAINTENANCE = 'upstream maintenance, back soon';

describe.each(['application/json', 'text/plain; charset=utf-8'])('a 200 labelled %s that is not JSON', (contentType) => {
  it('reaches a chat client as the wrong-address error, and is logged as one', async () => {
    harness.simulator.script({ kind: 'text', status: 200, text: MAINTENANCE, contentType });
    const ended = harness.nextEnd();
    const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: chatBody(),
    });
    expect(response.status).toBe(WRONG_ADDRESS_STATUS);
    const error = (JSON.parse(response.body) as { error: { type: string; message: string } }).error;
    expect(error.type).toBe('html_instead_of_json');
    expect(error.message).toContain(MAINTENANCE);
    expect(await ended).toMatchObject({ status: WRONG_ADDRESS_STATUS, errorClass: 'html_instead_of_json', usage: null });
  });

  it('reaches an Anthropic client in Anthropic error shape', async () => {
    harness.simulator.script({ kind: 'text', status: 200, text: MAINTENANCE, contentType });
    const body = JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    const response = await rawRequest(`${harness.proxy.url}/v1/messages`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(WRONG_ADDRESS_STATUS);
    expect(JSON.parse(response.body)).toMatchObject({ type: 'error', error: { message: expect.stringContaining(MAINTENANCE) } });
  });
});

describe('a passed-through endpoint', () => {
  it('labelled JSON whose body is not JSON is the wrong-address error too', async () => {
    harness.simulator.script({ kind: 'text', status: 200, text: MAINTENANCE, contentType: 'application/json' });
    const ended = harness.nextEnd();
    const body = JSON.stringify({ model: 'text-embedding-3-small', input: 'hi' });
    const response = await rawRequest(`${harness.proxy.url}/v1/embeddings`, { method: 'POST', headers: JSON_HEADERS, body });
    expect(response.status).toBe(WRONG_ADDRESS_STATUS);
    expect(JSON.parse(response.body)).toMatchObject({
      error: { type: 'html_instead_of_json', message: expect.stringContaining(MAINTENANCE) },
    });
    expect((await ended).errorClass).toBe('html_instead_of_json');
  });

  it('labelled JSON and JSON passes as it came, and one labelled as something else is not read', async () => {
    const embedded = await rawRequest(`${harness.proxy.url}/v1/embeddings`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ model: 'text-embedding-3-small', input: 'hi' }),
    });
    expect(embedded.status).toBe(200);
    expect(JSON.parse(embedded.body)).toHaveProperty('data');
    harness.simulator.script({ kind: 'text', status: 200, text: 'RIFF audio bytes', contentType: 'audio/wav' });
    const audio = await rawRequest(`${harness.proxy.url}/v1/audio/speech`, { method: 'POST', headers: JSON_HEADERS, body: '{}' });
    expect([audio.status, audio.body]).toEqual([200, 'RIFF audio bytes']);
  });
});
