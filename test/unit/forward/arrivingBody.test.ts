import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_NESTING_DEPTH } from '../../../proxy/contracts/defaults.ts';
import { ARRIVING_BODY_MIN_BYTES } from '../../../proxy/forward/arrivingBody.ts';
import { plannedSoFar } from '../../../proxy/forward/earlyForward.ts';
import { readClientBody, type ClientBody } from '../../../proxy/forward/requestBody.ts';

const MIB = 1024 * 1024;

function clientRequest(body: Buffer): PassThrough & { headers: Record<string, string> } {
  return Object.assign(new PassThrough(), { headers: { 'content-type': 'application/json', 'content-length': String(body.length) } });
}

const noContinue = { writeContinue: () => undefined } as unknown as ServerResponse;

/** Reads `body` handing it on at its first bytes when it names a model; the caller writes the body. */
function readEarly(req: PassThrough): Promise<ClientBody> {
  return readClientBody(req as unknown as IncomingMessage, noContinue, {
    limitBytes: 64 * MIB,
    maxJsonDepth: MAX_JSON_NESTING_DEPTH,
    sendsEarly: (sofar) => sofar.scan?.model !== null,
  });
}

/** What a reader of the sent stream has received so far, and whether it ended. */
function drain(stream: Readable): { bytes: () => number; ended: Promise<Buffer>; failed: Promise<Error> } {
  const chunks: Buffer[] = [];
  let bytes = 0;
  stream.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    bytes += chunk.length;
  });
  return {
    bytes: () => bytes,
    ended: new Promise((resolve) => stream.once('end', () => resolve(Buffer.concat(chunks)))),
    failed: new Promise((resolve) => stream.once('error', resolve)),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function embeddings(tail: string): Buffer {
  return Buffer.from(`{"model":"m","input":"${'x'.repeat(ARRIVING_BODY_MIN_BYTES)}${tail}`);
}

/** A streamed chat body whose `stream_options` the plan read at its start. */
function chatStream(tail: string): Buffer {
  return Buffer.from(`{"model":"m","stream":true,"stream_options":{},"messages":"${'x'.repeat(ARRIVING_BODY_MIN_BYTES)}${tail}`);
}

/** `body` read as far as its first 64 KiB, planned from them, and a reader of what is sent: the test writes the rest. */
async function plannedAfterFirstRead(body: Buffer) {
  const req = clientRequest(body);
  const reading = readEarly(req);
  req.write(body.subarray(0, 64 * 1024));
  const early = await reading;
  const arriving = early.arriving!;
  const sofar = plannedSoFar(early);
  arriving.planned(sofar.body.chunks, sofar.chunkCount, sofar.body.scan!);
  return { req, early, arriving, sent: drain(arriving.readable()) };
}

describe('a body handed on while it arrives', () => {
  it('sends every byte but the last piece until its end is checked, then the rest', async () => {
    const body = embeddings('"}');
    const { req, early, arriving, sent } = await plannedAfterFirstRead(body);
    req.write(body.subarray(64 * 1024, body.length - 10));
    await tick();
    expect(sent.bytes()).toBe(body.length - 10);
    req.end(body.subarray(body.length - 10));
    expect((await sent.ended).equals(body)).toBe(true);
    expect(arriving.complete).toBe(true);
    expect(early.byteLength).toBe(body.length);
  });

  it('refuses an end that asks for a stream the plan did not read, and never sends its last piece', async () => {
    const body = embeddings('","stream":true}');
    const { req, arriving, sent } = await plannedAfterFirstRead(body);
    req.end(body.subarray(64 * 1024));
    await sent.failed;
    expect(sent.bytes()).toBeLessThan(body.length);
    expect(arriving.refusal(true)?.message).toContain('"stream" near its end differs');
  });

  // Relays differ on which of two the gateway is asked for (gjson's Get reads the first, JSON.parse the last): any repeat is refused.
  it.each([
    ['model with another value', embeddings('","model":"other"}'), 'model'],
    ['model with the same value', embeddings('","model":"m"}'), 'model'],
    ['model, written with an escape', embeddings('","model":"\\u006d"}'), 'model'],
    ['stream', chatStream('","stream":true}'), 'stream'],
    ['stream_options with the same value', chatStream('","stream_options":{}}'), 'stream_options'],
    ['max_tokens', embeddings('","max_tokens":5,"max_tokens":6}'), 'max_tokens'],
  ])('refuses an end that repeats %s, and never sends its last piece', async (_case, body, member) => {
    const { req, arriving, sent } = await plannedAfterFirstRead(body);
    req.end(body.subarray(64 * 1024));
    await sent.failed;
    expect(sent.bytes()).toBeLessThan(body.length);
    expect(arriving.refusal(true)?.message).toContain(`"${member}" is written more than once`);
  });

  it.each([
    ['model', embeddings('","MODEL":"other"}'), 'MODEL', 'model'],
    ['n', embeddings('","N":8}'), 'N', 'n'],
  ])('refuses an end that writes %s in another letter case, and never sends its last piece', async (_case, body, written, member) => {
    const { req, arriving, sent } = await plannedAfterFirstRead(body);
    req.end(body.subarray(64 * 1024));
    await sent.failed;
    expect(sent.bytes()).toBeLessThan(body.length);
    expect(arriving.refusal(true)?.message).toContain(`"${written}" differs from "${member}" only in letter case`);
  });

  it('refuses an end nested past the limit, where a repeated member would go unread', async () => {
    const levels = MAX_JSON_NESTING_DEPTH + 5;
    const body = embeddings(`","x":${'['.repeat(levels)}${']'.repeat(levels)},"model":"other"}`);
    const { req, arriving, sent } = await plannedAfterFirstRead(body);
    req.end(body.subarray(64 * 1024));
    await sent.failed;
    expect(sent.bytes()).toBeLessThan(body.length);
    expect(arriving.refusal(true)?.message).toContain(`more than ${MAX_JSON_NESTING_DEPTH} levels deep near its end`);
  });

  it.each([
    ['a stream flag that says no stream', embeddings('","stream":false}')],
    ['stream options on a body that is no stream', embeddings('","stream_options":{}}')],
  ])('sends the whole body when its end adds %s, which the plan does not read', async (_case, body) => {
    const { req, arriving, sent } = await plannedAfterFirstRead(body);
    req.end(body.subarray(64 * 1024));
    expect((await sent.ended).equals(body)).toBe(true);
    expect(arriving.refusal(true)).toBeNull();
  });

  it('fails its readers when the client leaves', async () => {
    const body = embeddings('"}');
    const req = clientRequest(body);
    const reading = readEarly(req);
    req.write(body.subarray(0, 64 * 1024));
    const early = await reading;
    const sent = drain(early.arriving!.readable());
    req.destroy();
    await sent.failed;
    expect(early.arriving!.hasFailed).toBe(true);
    expect(early.arriving!.refusal(true)).toBeNull();
  });
});
