import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatAnswerText, chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { findSentinel } from '../../support/sentinel.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());
beforeEach(() => {
  harness.simulator.reset();
  harness.events.length = 0;
});

async function send(body: string) {
  const ended = harness.nextEnd();
  const response = await rawRequest(`${harness.proxy.url}/v1/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body });
  return { response, end: await ended };
}

const chatAnswer = chatAnswerText('hello');

describe('answers that are unusual but legal HTTP', () => {
  it('an error whose body never ends is answered once enough of it came, not at the total timeout', async () => {
    const error = JSON.stringify({ error: { message: 'context too long', type: 'invalid_request_error' } });
    const bodyBytes = 20 * 1024 * 1024;
    const text = error.padEnd(bodyBytes, ' ');
    harness.simulator.script({ kind: 'text', status: 400, contentType: 'application/json', text, stallAfterBytes: bodyBytes - 1 });
    const { response, end } = await send(chatBody());
    expect(response.status).toBe(400);
    expect(end.errorClass).toBe('bad_request');
  });

  it("headers past undici's limit are the gateway's error, not a network to check", async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      text: chatAnswer,
      headers: { 'x-trace': 'a'.repeat(20_000) },
    });
    const { response, end } = await send(chatBody());
    expect(response.status).toBe(502);
    expect(end.errorClass).toBe('upstream_error');
    expect(harness.simulator.received).toHaveLength(1);
  });

  it('a 103 Early Hints before the 200 is read past: the 200 is the answer', async () => {
    harness.simulator.script({
      kind: 'text',
      status: 200,
      contentType: 'application/json',
      text: chatAnswer,
      earlyHints: { link: '</style.css>; rel=preload; as=style' },
    });
    const { response, end } = await send(chatBody());
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ choices: [{ message: { content: 'hello' } }] });
    expect(end.errorClass).toBeNull();
    expect(end.usage).toMatchObject({ inputTokens: 7, outputTokens: 5 });
    expect(findSentinel(JSON.stringify(end))).toBeNull();
  });
});

describe('JSON that starts with a byte order mark, as some servers write it', () => {
  // RFC 8259 section 8.1 lets a parser read past it, and the clients' own do (fetch's json(), Python's json.loads).
  const BOM = '\uFEFF';

  it('a chat answer is passed on as sent, its usage read, not refused as a wrong address', async () => {
    harness.simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: `${BOM}${chatAnswer}` });
    const { response, end } = await send(chatBody());
    expect(response.status).toBe(200);
    expect(response.body).toBe(`${BOM}${chatAnswer}`);
    expect(end.errorClass).toBeNull();
    expect(end.usage).toMatchObject({ inputTokens: 7, outputTokens: 5 });
  });

  it("an error answer's message reaches the client", async () => {
    const error = { error: { message: 'max_tokens is too large for this model', type: 'invalid_request_error', code: 'max_tokens' } };
    harness.simulator.script({ kind: 'text', status: 400, contentType: 'application/json', text: `${BOM}${JSON.stringify(error)}` });
    const { response, end } = await send(chatBody());
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({
      error: { code: 'max_tokens', message: expect.stringContaining('max_tokens is too large') },
    });
    expect(end.errorClass).toBe('bad_request');
  });
});

describe('error bodies in the shapes other servers give them', () => {
  it.each([
    [
      "FastAPI's validation list (servers built on it: llama-cpp-python, many self-hosted ones)",
      422,
      { detail: [{ loc: ['body', 'messages', 0, 'content'], msg: 'field required', type: 'value_error.missing' }] },
      'body.messages.0.content: field required',
    ],
    [
      "Google's error wrapped in a list",
      400,
      [{ error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } }],
      'API key not valid',
    ],
    [
      "Cloudflare's envelope, its errors in a list",
      400,
      { result: null, success: false, errors: [{ code: 5006, message: "AiError: Bad input: oneOf at '/' not met" }], messages: [] },
      'AiError: Bad input',
    ],
  ])("%s: the gateway's words reach the client", async (_shape, status, body, said) => {
    harness.simulator.script({ kind: 'text', status, contentType: 'application/json', text: JSON.stringify(body) });
    const { response, end } = await send(chatBody());
    expect(response.status).toBe(status);
    expect(end.errorClass).toBe('bad_request');
    expect((JSON.parse(response.body) as { error: { message: string } }).error.message).toContain(`Gateway said: "${said}`);
  });
});

describe('a success status with no answer in it', () => {
  it.each([
    ['an empty 200 labelled JSON', 200, 'application/json'],
    ['a 204', 204, undefined],
  ])("%s is the gateway's failure, not a wrong base URL", async (_answer, status, contentType) => {
    harness.simulator.script({ kind: 'text', status, text: '', ...(contentType ? { contentType } : {}) });
    const { response, end } = await send(chatBody());
    expect(response.status).toBe(502);
    expect(end.errorClass).toBe('upstream_error');
    const { message } = (JSON.parse(response.body) as { error: { message: string } }).error;
    expect(message).toContain(`a ${status} with an empty body`);
    expect(message).not.toMatch(/web page|base URL/);
  });
});
