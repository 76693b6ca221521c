import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import type { LiveFrame } from '../../../proxy/contracts/liveEvents.ts';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import { addClientToken, addProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { openConfigStore } from '../../../proxy/app/profiles/configStore.ts';
import { startAirlock, type Airlock } from '../../../proxy/app/startAirlock.ts';
import { gatewayKeyAccount } from '../../../proxy/contracts/secretStore.ts';
import { buildSupportInfo } from '../../../renderer/src/detail/copyText.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { DEFAULT_MODEL_IDS } from '../../simulator/models.ts';
import { chatAnswerText, chatBody, JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { findSentinel, findSentinelInStream, SENTINEL_KEY } from '../../support/sentinel.ts';
import { memorySecretStore } from '../../support/memorySecretStore.ts';

let simulator: GatewaySimulator;
let airlock: Airlock;
let dataDir: string;
const token = generateToken();
/** Everything that left Airlock for a client, the window or the user, labelled by where it went. */
const seen: Array<{ where: string; text: string }> = [];
const consoleOutput: string[] = [];

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

/** Files that hold the key, in any form, with the names relative to the data directory. */
function leakingFiles(): string[] {
  return filesUnder(dataDir)
    .filter((file) => findSentinel(readFileSync(file)) !== null)
    .map((file) => path.relative(dataDir, file));
}

/** The window's live channel, read from the first frame until told to stop. */
function openLiveFeed(): {
  frames: () => LiveFrame[];
  until: (done: (frames: LiveFrame[]) => boolean) => Promise<void>;
  close: () => void;
} {
  let text = '';
  let check: (() => void) | null = null;
  const frames = (): LiveFrame[] =>
    text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as LiveFrame);
  const req: ClientRequest = request(
    `${airlock.proxy.url}/_airlock/api/events`,
    { headers: { authorization: `Bearer ${airlock.controlToken}` } },
    (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        check?.();
      });
    },
  );
  req.on('error', () => undefined);
  req.end();
  return {
    frames,
    until: (done) =>
      new Promise((resolve) => {
        check = () => {
          if (done(frames())) resolve();
        };
        check();
      }),
    close: () => req.destroy(),
  };
}

beforeAll(async () => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      consoleOutput.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    });
  }
  // A gateway that echoes the caller's key, here in a model id of its list (as a fine-tune's id
  // carries its owner's name): the Models screen and the "did you mean" hints show that list.
  // One id holds it percent-encoded, as a gateway that builds ids from URL parts may write it.
  simulator = await startGatewaySimulator({
    models: [...DEFAULT_MODEL_IDS, `ft:gpt-4o-mini:${SENTINEL_KEY}`, `ft:gpt-4o-mini:${escapedKeys.percentDashes}`],
  });
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-sentinel-'));
  const store = openConfigStore(dataDir);
  await store.update((config) =>
    addProfile(
      config,
      { id: 'main', name: 'Main', baseUrl: simulator.baseUrl, modelRoutes: [{ pattern: 'claude-*', target: 'gpt-4o-mini' }] },
      { activate: true },
    ),
  );
  await store.update((config) => addClientToken(config, tokenRecord('sweep', token, null, Date.now())));
  store.close();
  airlock = await startAirlock({ dataDir, port: 0, env: {}, secrets: memorySecretStore({ [gatewayKeyAccount('main')]: SENTINEL_KEY }) });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The key as a gateway may write it escaped for where it puts it: each reader undoes the escapes.
 * A URL may percent-encode any character (RFC 3986 sections 2.1 and 2.3: %2D is `-` to a reader),
 * JSON may write any as \uXXXX (RFC 8259 section 7), and an HTML page any as a character reference
 * (WHATWG HTML section 13.5; OWASP ESAPI's HTML encoder writes every non-alphanumeric character but
 * `,.-_` and space so, a key's `/`, `+` and `=` among them).
 */
const escapedKeys = {
  percentDashes: SENTINEL_KEY.replaceAll('-', '%2D'),
  percentEvery: [...SENTINEL_KEY].map((char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`).join(''),
  jsonEvery: [...SENTINEL_KEY].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
  htmlEvery: [...SENTINEL_KEY].map((char) => `&#${char.charCodeAt(0)};`).join(''),
  htmlDashes: SENTINEL_KEY.replaceAll('-', '&#x2d;'),
};

/** Requests answered by a gateway that echoes the key escaped, in headers and bodies, on each kind of answer. */
async function callsWithEscapedEchoes(): Promise<void> {
  const { percentDashes, percentEvery, jsonEvery, htmlEvery, htmlDashes } = escapedKeys;
  // An error whose headers carry it as an OAuth error (RFC 6750 section 3) and a cookie would.
  simulator.script({
    kind: 'text',
    status: 400,
    contentType: 'application/json',
    text: `{"error":{"message":"Incorrect API key provided: ${percentEvery}","type":"invalid_request_error"}}`,
    headers: {
      'www-authenticate': `Bearer error="invalid_token", error_description="${percentDashes}"`,
      'x-request-id': `req_${percentDashes}`,
      'set-cookie': `gw_key=${percentEvery}; Path=/`,
    },
  });
  await call('/v1/chat/completions', { method: 'POST', body: chatBody() });
  // An error page from a proxy's template, and an error that is neither JSON nor HTML.
  simulator.script({
    kind: 'text',
    status: 404,
    contentType: 'text/html',
    text: `<html><body><p>Key ${htmlEvery} not found</p></body></html>`,
  });
  await call('/v1/chat/completions', { method: 'POST', body: chatBody() });
  simulator.script({
    kind: 'text',
    status: 400,
    contentType: 'multipart/form-data; boundary=b',
    text: `--b\r\nContent-Disposition: form-data; name="error"\r\n\r\ninvalid key ${percentDashes}\r\n--b--\r\n`,
  });
  await call('/v1/chat/completions', { method: 'POST', body: chatBody() });
  // Passed-through answers: a list, a file, and a redirect to storage whose Location and page hold it.
  simulator.script({
    kind: 'text',
    path: '/models',
    status: 200,
    contentType: 'application/json',
    text: `{"object":"list","data":[{"id":"m-${jsonEvery}"}]}`,
  });
  await call('/v1/models');
  simulator.script({ kind: 'text', path: '/files', status: 200, text: `key=${htmlDashes}\n` });
  await call('/v1/files/file-1/content');
  simulator.script({
    kind: 'text',
    path: '/files',
    status: 302,
    contentType: 'text/html',
    text: `<a href="https://storage.invalid/f?key=${htmlDashes}">moved</a>`,
    headers: { location: `https://storage.invalid/f?key=${percentEvery}` },
  });
  await call('/v1/files/file-1/content');
  // A model's answer and a stream whose escaped key is cut across two reads.
  simulator.script({ kind: 'text', status: 200, contentType: 'application/json', text: chatAnswerText('KEY').replace('KEY', jsonEvery) });
  await call('/v1/chat/completions', { method: 'POST', body: chatBody() });
  const chunk = (content: string): string =>
    `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]}\n\n`;
  const keyed = chunk(`key ${percentEvery}`);
  const cutAt = keyed.indexOf(percentEvery) + Math.floor(percentEvery.length / 2);
  simulator.script({ kind: 'bodyChunks', chunks: [keyed.slice(0, cutAt), keyed.slice(cutAt), 'data: [DONE]\n\n'] });
  await call('/v1/chat/completions', { method: 'POST', body: chatBody({ stream: true }) });
}

/**
 * Bodies refused before the gateway as not valid JSON, which the log keeps for their detail: the key
 * pasted in each form and escaped as JSON would write it, one of them sent in two writes cut inside
 * the key. Returns the id of the last, to check that its body was kept at all.
 */
async function refusedBrokenBodies(pasted: string): Promise<string> {
  const broken = (content: string): string => `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"${content}"}],, oops`;
  for (const content of [pasted, `json-escaped ${escapedKeys.jsonEvery}`]) {
    await call('/v1/chat/completions', { method: 'POST', body: broken(content) });
  }
  const body = broken(`split ${SENTINEL_KEY}`);
  const cutAt = body.indexOf(SENTINEL_KEY) + Math.floor(SENTINEL_KEY.length / 2);
  return new Promise((resolve, reject) => {
    const req = request(
      `${airlock.proxy.url}/v1/messages`,
      { method: 'POST', headers: { authorization: `Bearer ${token}`, ...JSON_HEADERS, 'transfer-encoding': 'chunked' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          seen.push({ where: 'client body of a split broken body', text });
          resolve(String(res.headers['x-airlock-request-id']));
        });
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, cutAt), () => req.end(body.slice(cutAt)));
  });
}

/**
 * What a client receives is checked whole: headers, the body as sent, and for streams every text
 * it would assemble from the events. The key reaches no tool, also not when the user pasted it
 * into a prompt and the model repeats it: a tool holds only its Airlock token. Returns Airlock's id.
 */
async function call(pathName: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<string> {
  const response = await rawRequest(`${airlock.proxy.url}${pathName}`, {
    ...options,
    headers: { authorization: `Bearer ${token}`, ...JSON_HEADERS, ...options.headers },
  });
  seen.push({ where: `client headers ${pathName}`, text: JSON.stringify(response.headers) });
  seen.push({ where: `client body ${pathName}`, text: response.body });
  if (String(response.headers['content-type']).includes('text/event-stream')) {
    seen.push({ where: `client stream ${pathName}`, text: findSentinelInStream(response.body) ?? '' });
  }
  return String(response.headers['x-airlock-request-id']);
}

describe('the gateway key never leaves the keychain and the upstream header', () => {
  it('is absent from every response, the live feed, support info, console line and file after a full session', async () => {
    const live = openLiveFeed();
    await live.until((frames) => frames.length > 0);
    const pasted = `my key is ${SENTINEL_KEY}, url-encoded ${encodeURIComponent(SENTINEL_KEY)}, base64 ${Buffer.from(SENTINEL_KEY).toString('base64')}`;
    await call('/v1/chat/completions', { method: 'POST', body: chatBody({ messages: [{ role: 'user', content: pasted }] }) });
    await call('/v1/chat/completions', { method: 'POST', body: chatBody({ stream: true, messages: [{ role: 'user', content: pasted }] }) });
    // A gateway that echoes the key it was sent: as its request id, in a body, and streamed a few characters a delta.
    simulator.script(
      { kind: 'echoKey' },
      { kind: 'echoKey' },
      { kind: 'echoKey', deltaChars: [2, 3] },
      { kind: 'echoKey', deltaChars: [3] },
      { kind: 'echoKey', deltaChars: [2] },
    );
    await call('/v1/models');
    await call('/v1/chat/completions', { method: 'POST', body: chatBody() });
    await call('/v1/chat/completions', { method: 'POST', body: chatBody({ stream: true }) });
    await call('/v1/chat/completions', { method: 'POST', body: chatBody({ stream: true, stream_options: { include_usage: true } }) });
    await call('/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': token },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    simulator.script({ kind: 'html' });
    await call('/v1/models');
    await call('/v1/chat/completions', { method: 'POST', body: chatBody({ model: 'unknown-model' }) });
    await call('/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': token },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 16, stream: true, messages: [{ role: 'user', content: pasted }] }),
    });
    await call('/v1/responses', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', input: pasted }) });
    await call('/v1/embeddings', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', input: pasted }) });
    await call('/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${SENTINEL_KEY}` }, body: chatBody() });
    // A tool set up with the gateway key itself, in each header a client library sends it in (Anthropic's
    // x-api-key, Azure's api-key, Gemini's x-goog-api-key), beside its Airlock token and in place of it.
    for (const header of ['x-api-key', 'api-key', 'x-goog-api-key']) {
      await call('/v1/chat/completions', { method: 'POST', headers: { [header]: SENTINEL_KEY }, body: chatBody() });
      await call('/v1/messages', {
        method: 'POST',
        headers: { authorization: '', [header]: SENTINEL_KEY },
        body: JSON.stringify({ model: 'claude-x', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
      });
    }
    // An image answer that echoes the pasted key, and its replay: the client gets neither with the key.
    const image = {
      method: 'POST',
      headers: { 'idempotency-key': 'sweep-image' },
      body: JSON.stringify({ model: 'gpt-image-1', prompt: pasted }),
    };
    await call('/v1/images/generations', image);
    await call('/v1/images/generations', image);
    // A front end that compresses although Airlock asked for none: the answer is decoded, so the key is found and masked.
    simulator.script({ kind: 'text', path: '/files', status: 200, encoding: 'gzip', text: `notes\nkey=${SENTINEL_KEY}\n` });
    const compressedId = await call('/v1/files/file-1/content');
    await callsWithEscapedEchoes();
    const refusedId = await refusedBrokenBodies(pasted);
    // Last, because a rejected key opens the profile's circuit breaker for the requests after it.
    simulator.script({ kind: 'status', status: 401 });
    await call('/v1/chat/completions', { method: 'POST', body: chatBody() });
    const lastId = await call('/v1/chat/completions', { method: 'POST', body: chatBody() });
    await airlock.log.flush();

    // The live feed, as the window assembles it: fields replaced, text appended per request.
    await live.until((frames) =>
      frames.some((frame) => frame.requests.some((update) => update.requestId === lastId && update.fields.state === 'done')),
    );
    live.close();
    const liveText = new Map<string, string>();
    for (const update of live.frames().flatMap((frame) => frame.requests))
      liveText.set(update.requestId, (liveText.get(update.requestId) ?? '') + update.appendText);
    seen.push({ where: 'live feed frames', text: JSON.stringify(live.frames()) });
    for (const [requestId, text] of liveText) seen.push({ where: `live feed text of ${requestId}`, text });
    expect([...liveText.values()].some((text) => text.includes('[redacted]'))).toBe(true);

    const control = { authorization: `Bearer ${airlock.controlToken}` };
    const page = await rawRequest(`${airlock.proxy.url}/_airlock/api/requests?limit=100`, { headers: control });
    seen.push({ where: 'request list', text: page.body });
    for (const item of (JSON.parse(page.body) as { items: { id: string }[] }).items) {
      const detail = (await rawRequest(`${airlock.proxy.url}/_airlock/api/requests/${item.id}`, { headers: control })).body;
      seen.push({ where: `detail ${item.id}`, text: detail });
      seen.push({ where: `support info ${item.id}`, text: buildSupportInfo(JSON.parse(detail) as RequestDetail) });
      for (const part of ['request', 'response', 'stream-events']) {
        const body = (await rawRequest(`${airlock.proxy.url}/_airlock/api/requests/${item.id}/body/${part}`, { headers: control })).body;
        seen.push({ where: `${part} body ${item.id}`, text: body });
        const text = (JSON.parse(body) as { text?: string }).text;
        if (text !== undefined) seen.push({ where: `${part} body ${item.id}, assembled`, text: findSentinelInStream(text) ?? '' });
      }
    }
    // The refused broken bodies were kept (masked), not dropped: else this sweep would prove nothing of them.
    const refusedBody = await rawRequest(`${airlock.proxy.url}/_airlock/api/requests/${refusedId}/body/request`, { headers: control });
    expect((JSON.parse(refusedBody.body) as { text?: string }).text).toContain('split [redacted]');
    const compressedBody = await rawRequest(`${airlock.proxy.url}/_airlock/api/requests/${compressedId}/body/response`, {
      headers: control,
    });
    expect((JSON.parse(compressedBody.body) as { text?: string }).text).toContain('notes\nkey=');
    for (const format of ['har', 'csv']) {
      const exported = await rawRequest(`${airlock.proxy.url}/_airlock/api/export/requests?format=${format}`, { headers: control });
      expect(exported.status).toBe(200);
      seen.push({ where: `export ${format}`, text: exported.body });
    }
    for (const endpoint of ['status', 'profiles', 'tokens', 'spend', 'models']) {
      seen.push({ where: endpoint, text: (await rawRequest(`${airlock.proxy.url}/_airlock/api/${endpoint}`, { headers: control })).body });
    }
    // The database, its WAL and shared memory while Airlock runs (the WAL is gone after a clean stop).
    const whileRunning = filesUnder(dataDir).map((file) => path.basename(file));
    expect(whileRunning).toEqual(expect.arrayContaining(['requests.db', 'requests.db-wal', 'requests.db-shm']));
    expect(leakingFiles()).toEqual([]);
    await airlock.stop();

    expect(seen.length).toBeGreaterThan(60);
    expect(seen.filter(({ text }) => findSentinel(text) !== null).map(({ where }) => where)).toEqual([]);
    expect(findSentinel(consoleOutput.join(''))).toBeNull();
    expect(leakingFiles()).toEqual([]);
    // The key did reach the gateway, as the Authorization header and nowhere else.
    expect(simulator.received.filter((received) => received.authOk).length).toBeGreaterThanOrEqual(12);
  });
});
