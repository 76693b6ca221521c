import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

// A large body goes on to the gateway while it arrives once its plan is settled (proxy/forward/arrivingBody.ts).
const MIB = 1024 * 1024;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ profile: { modelAliases: { embed: 'text-embedding-3-small' }, retry: { maxRetries: 1 } } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.simulator.reset());

/** An embeddings body of about `inputBytes`, its model first as the OpenAI Node SDK writes it. */
function embeddingsBody(model: string, inputBytes: number, tail = '"}'): Buffer {
  return Buffer.from(`{"model":${JSON.stringify(model)},"input":"${'x'.repeat(inputBytes)}${tail}`);
}

interface HeldUpload {
  req: ClientRequest;
  answer: Promise<{ status: number; body: string; shouldRetry: string | undefined }>;
}

/** Sends all of `body` but its last `heldBytes`, declared whole: the test decides when the rest goes. */
function uploadHoldingTail(body: Buffer, heldBytes: number): HeldUpload {
  const req = request(`${harness.proxy.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(body.length), authorization: 'Bearer client-token' },
  });
  const answer = new Promise<{ status: number; body: string; shouldRetry: string | undefined }>((resolve, reject) => {
    req.once('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          shouldRetry: res.headers['x-should-retry'] as string | undefined,
        }),
      );
    });
    req.once('error', reject);
  });
  req.write(body.subarray(0, body.length - heldBytes));
  return { req, answer };
}

/** Sends `body` but its last 100 bytes, then those once the gateway has begun receiving it: sent on early, its end checked last. */
async function uploadTailAfterGatewaySees(body: Buffer): Promise<HeldUpload> {
  const gatewaySees = harness.simulator.nextBodyStart('/embeddings');
  const upload = uploadHoldingTail(body, 100);
  await gatewaySees;
  upload.req.end(body.subarray(body.length - 100));
  return upload;
}

function requestEventOf(requestId: string): Extract<RequestLifecycleEvent, { type: 'request' }> | undefined {
  return harness.events.find(
    (event): event is Extract<RequestLifecycleEvent, { type: 'request' }> => event.type === 'request' && event.requestId === requestId,
  );
}

describe('a large body sent on while it arrives', () => {
  it('reaches the gateway before the client has sent its end, with the model alias spliced in, and is logged', async () => {
    const body = embeddingsBody('embed', 4 * MIB);
    const gatewaySees = harness.simulator.nextBodyStart('/embeddings');
    const upload = uploadHoldingTail(body, 1024);
    // The gateway has the first bytes while the last kilobyte is still held by the client.
    expect(await gatewaySees).toBeGreaterThan(0);
    const ended = harness.nextEnd();
    upload.req.end(body.subarray(body.length - 1024));
    const answer = await upload.answer;
    expect(answer.status).toBe(200);
    const sent = harness.simulator.received[0]?.body;
    expect(sent?.toString('utf8')).toBe(body.toString('utf8').replace('"model":"embed"', '"model":"text-embedding-3-small"'));
    const end = await ended;
    expect(end).toMatchObject({ status: 200, errorClass: null });
    const logged = requestEventOf(end.requestId)?.readBody();
    expect(logged?.truncated).toBe(true);
    expect(logged?.body?.subarray(0, 30).toString('utf8')).toBe(body.subarray(0, 30).toString('utf8'));
    expect(logged?.body?.length).toBe(1024 * 1024);
  });

  it('replays the whole body from the kept chunks when the first attempt fails', async () => {
    harness.simulator.script({ path: '/embeddings', kind: 'status', status: 503 });
    const body = embeddingsBody('text-embedding-3-small', 2 * MIB);
    const upload = await uploadTailAfterGatewaySees(body);
    expect((await upload.answer).status).toBe(200);
    expect(harness.simulator.received).toHaveLength(2);
    expect(harness.simulator.received[1]?.body.equals(body)).toBe(true);
  });

  it.each([
    ['closes its connection', (req: ClientRequest) => req.destroy()],
    ['resets its connection', (req: ClientRequest) => req.socket?.resetAndDestroy()],
  ])('stops the gateway request when the client %s mid-upload, says so in the row and bills nothing', async (_how, leave) => {
    const body = embeddingsBody('text-embedding-3-small', 2 * MIB);
    const gatewaySees = harness.simulator.nextBodyStart('/embeddings');
    const upload = uploadHoldingTail(body, 100);
    upload.req.on('error', () => undefined);
    upload.answer.catch(() => undefined);
    await gatewaySees;
    const ended = harness.nextEnd();
    leave(upload.req);
    const end = await ended;
    expect(end).toMatchObject({ status: 499, errorClass: 'client_aborted' });
    expect(end.errorMessage).toContain('while sending its request');
    // The gateway never had the whole request: nothing is billed, not even an estimate.
    expect(end).toMatchObject({ usage: null, usageSource: null, costCredits: null });
    await harness.simulator.waitForClose(0, 5000);
    // Not retried (the harness's profile allows one retry): the client's leaving ended the exchange.
    expect(harness.simulator.received).toHaveLength(1);
    expect(harness.simulator.received[0]?.body.length ?? 0).toBeLessThan(body.length);
  });

  it('passes on the gateway 400 for a body whose JSON is broken after its first bytes', async () => {
    const body = embeddingsBody('text-embedding-3-small', 2 * MIB, '"');
    const gatewaySees = harness.simulator.nextBodyStart('/embeddings');
    const upload = uploadHoldingTail(body, 10);
    await gatewaySees;
    upload.req.end(body.subarray(body.length - 10));
    const answer = await upload.answer;
    expect(answer.status).toBe(400);
    // The gateway's own words, with Airlock's explanation of a refused request around them.
    const error = (JSON.parse(answer.body) as { error: { type: string; message: string } }).error;
    expect(error.type).toBe('bad_request');
    expect(error.message).toContain('Gateway said: "We could not parse the JSON body');
  });

  it('reads a legacy completion whose stream flag comes after its prompt whole, and streams its answer', async () => {
    // openai-python writes `stream` after the prompt: a body sent before it was seen would be planned as no stream.
    const body = Buffer.from(`{"model":"gpt-3.5-turbo-instruct","prompt":"${'x'.repeat(2 * MIB)}","stream":true}`);
    const answer = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const req = request(`${harness.proxy.url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), authorization: 'Bearer client-token' },
      });
      req.once('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      req.once('error', reject);
      req.end(body);
    });
    expect(answer.status).toBe(200);
    expect(answer.type).toContain('text/event-stream');
    expect(answer.body).toContain('data: [DONE]');
    expect(harness.simulator.received[0]?.body.length).toBe(body.length);
  });

  it('refuses a body that names another model after its first megabyte, stopping the gateway before its end', async () => {
    const body = embeddingsBody('text-embedding-3-small', 2 * MIB, '","model":"gpt-4o"}');
    const upload = await uploadTailAfterGatewaySees(body);
    const answer = await upload.answer;
    expect(answer.status).toBe(400);
    // The same body is refused again: SDKs are told not to resend it.
    expect(answer.shouldRetry).toBe('false');
    expect(answer.body).toContain('top-level \\"model\\" is written more than once');
    await harness.simulator.waitForClose(0, 5000);
    expect(harness.simulator.received[0]?.body.length ?? 0).toBeLessThan(body.length);
    expect(answer.body).not.toContain(SENTINEL_KEY);
  });

  it('refuses a body that repeats its model with the same value near its end, as a body read whole is refused', async () => {
    const body = embeddingsBody('text-embedding-3-small', 2 * MIB, '","model":"text-embedding-3-small"}');
    const upload = await uploadTailAfterGatewaySees(body);
    const answer = await upload.answer;
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('top-level \\"model\\" is written more than once');
    await harness.simulator.waitForClose(0, 5000);
    expect(harness.simulator.received[0]?.body.length ?? 0).toBeLessThan(body.length);
  });

  it('refuses a body that repeats an aliased model near its end: the gateway would read the alias there, unchanged', async () => {
    const body = embeddingsBody('embed', 2 * MIB, '","model":"embed"}');
    const upload = await uploadTailAfterGatewaySees(body);
    const answer = await upload.answer;
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('top-level \\"model\\" is written more than once');
  });
});
