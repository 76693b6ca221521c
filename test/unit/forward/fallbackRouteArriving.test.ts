import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_NESTING_DEPTH } from '../../../proxy/contracts/defaults.ts';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import type { UpstreamTarget } from '../../../proxy/contracts/ports.ts';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { ARRIVING_BODY_MIN_BYTES } from '../../../proxy/forward/arrivingBody.ts';
import type { FailedStep } from '../../../proxy/forward/fallback.ts';
import { type BodyWaitWatch, fallbackRoute } from '../../../proxy/forward/fallbackRoute.ts';
import { readClientBody } from '../../../proxy/forward/requestBody.ts';
import type { Gated } from '../../../proxy/forward/stageRecords.ts';
import { RequestTrace } from '../../../proxy/forward/trace.ts';
import { UploadTimedOutError } from '../../../proxy/forward/uploadStall.ts';
import { SECOND_SENTINEL_KEY, SENTINEL_KEY } from '../../support/sentinel.ts';

// A fallback step is planned from the whole body: for a body still arriving when its first step
// failed (arrivingBody.ts), the step waits for its end, and is skipped when the client leaves first;
// an upload that stalls ends the walk with its own 408.
const profile = profileSchema.parse({
  id: 'own',
  name: 'Own',
  baseUrl: 'http://127.0.0.1:9/v1',
  fallbacks: [{ model: 'text-embedding-3-large' }, { model: 'text-embedding-ada-002' }],
});
const body = Buffer.from(`{"model":"text-embedding-3-small","input":"${'x'.repeat(ARRIVING_BODY_MIN_BYTES)}"}`);
const FIRST_READ_BYTES = 64 * 1024;

/** The route of a request whose body has arrived as far as its first read, and the client's side of it. */
async function routeWhileArriving(
  watch: BodyWaitWatch = { signal: new AbortController().signal, reason: () => null },
  failure: FailedStep = { kind: 'status', status: 503, errorClass: 'upstream_error' },
  target: UpstreamTarget = { profile, apiKey: SENTINEL_KEY },
) {
  const req = Object.assign(new PassThrough(), {
    headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
  });
  const reading = readClientBody(req as unknown as IncomingMessage, { writeContinue: () => undefined } as unknown as ServerResponse, {
    limitBytes: 64 * 1024 * 1024,
    maxJsonDepth: MAX_JSON_NESTING_DEPTH,
    sendsEarly: () => true,
  });
  req.write(body.subarray(0, FIRST_READ_BYTES));
  const clientBody = await reading;
  const trace = new RequestTrace(new RequestEvents(), 1024 * 1024);
  const plan = { upstreamModel: 'text-embedding-3-small', upstreamPath: 'embeddings' };
  const gated = {
    req,
    res: { headersSent: false },
    method: 'POST',
    path: 'embeddings',
    query: '',
    pathModel: null,
    protocol: 'openai',
    identity: { tokenName: 'tests', pinnedProfileId: null },
    target,
    trace,
    plan,
    clientBody,
    firstOfKey: null,
  } as unknown as Gated;
  const route = fallbackRoute(gated, { targets: { resolve: () => target } })!;
  const step = route.next(failure, { plan: gated.plan, target }, watch);
  return { req, trace, step, clientBody };
}

describe('a fallback step for a body still arriving', () => {
  it('is planned once the body is whole, from all of it', async () => {
    const { req, step } = await routeWhileArriving();
    req.end(body.subarray(FIRST_READ_BYTES));
    const next = await step;
    if (next === null || !('plan' in next)) throw new Error('no step planned');
    expect(next.plan.upstreamModel).toBe('text-embedding-3-large');
    expect(next.plan.byteLength).toBe(body.length);
    expect(next.plan.arriving).toBeUndefined();
  });

  it('is skipped when the client leaves before the body is whole', async () => {
    const { req, trace, step } = await routeWhileArriving();
    req.destroy();
    expect(await step).toBeNull();
    // Once: the next step would wait for the same body.
    expect(trace.fallback?.chain).toHaveLength(2);
    expect(trace.fallback?.chain.at(-1)).toMatchObject({ errorClass: 'client_aborted', note: 'the request body never arrived whole' });
  });

  it("ends the walk with the body's 400 when its end contradicts what the plan read from its start", async () => {
    const { req, trace, step, clientBody } = await routeWhileArriving();
    // The plan read a stream from the first bytes, which the whole body does not ask for.
    clientBody.arriving?.planned([], clientBody.chunks.length, { stream: true });
    req.end(body.subarray(FIRST_READ_BYTES));
    expect(await step).toMatchObject({ bodyRefusal: { status: 400, errorClass: 'invalid_request' } });
    expect(trace.fallback?.chain).toHaveLength(2);
  });

  it("ends the wait at the exchange's total timeout with the total timeout's 408, the body still arriving", async () => {
    const controller = new AbortController();
    const { trace, step } = await routeWhileArriving({ signal: controller.signal, reason: () => 'timeout_total' });
    controller.abort('timeout_total');
    const next = await step;
    expect(next).toMatchObject({ bodyRefusal: { status: 408, errorClass: 'upload_stalled' } });
    if (next === null || !('bodyRefusal' in next)) throw new Error('no refusal');
    expect(next.bodyRefusal.message).toContain(`the client had sent ${FIRST_READ_BYTES} of its ${body.length} declared bytes`);
    expect(next.bodyRefusal.message).toContain(`the profile's total timeout (${profile.timeouts.totalTimeoutMs} ms)`);
    expect(trace.fallback?.chain).toHaveLength(2);
  });

  it("ends the walk with the body's own refusal when its upload stalls: the 408 upload_stalled, not a client that left", async () => {
    const { trace, step, clientBody } = await routeWhileArriving();
    clientBody.arriving?.fail(new UploadTimedOutError(FIRST_READ_BYTES, body.length, 1000));
    const next = await step;
    expect(next).toMatchObject({ bodyRefusal: { status: 408, errorClass: 'upload_stalled' } });
    expect(trace.fallback?.chain.at(-1)).toMatchObject({ errorClass: 'upload_stalled', model: 'text-embedding-3-large' });
  });
});

/** The failure a held profile's request starts its walk with: its pool waits, and nothing was sent. */
const HELD: FailedStep = {
  kind: 'unsent',
  status: 429,
  errorClass: 'rate_limited',
  refusal: { status: 429, errorClass: 'keys_cooling', message: 'every key of the pool is cooling' },
};
const NO_WATCH: BodyWaitWatch = { signal: new AbortController().signal, reason: () => null };

describe("a held profile's request, of which nothing was sent, whose body is refused while its first step waits", () => {
  it('says nothing was sent when the request timeout ends the upload (not that Airlock had begun sending)', async () => {
    const { step, clientBody } = await routeWhileArriving(NO_WATCH, HELD);
    clientBody.arriving?.fail(new UploadTimedOutError(FIRST_READ_BYTES, body.length, 1000));
    const next = await step;
    if (next === null || !('bodyRefusal' in next)) throw new Error('no refusal');
    expect(next.bodyRefusal).toMatchObject({ status: 408, errorClass: 'upload_stalled' });
    expect(next.bodyRefusal.message).toContain("Airlock's request timeout (1000 ms");
    expect(next.bodyRefusal.message).toContain('Nothing was sent to the gateway.');
    expect(next.bodyRefusal.message).not.toContain('begun sending');
  });

  it('says nothing was sent when its end contradicts the plan', async () => {
    const { req, step, clientBody } = await routeWhileArriving(NO_WATCH, HELD);
    clientBody.arriving?.planned([], clientBody.chunks.length, { stream: true });
    req.end(body.subarray(FIRST_READ_BYTES));
    const next = await step;
    if (next === null || !('bodyRefusal' in next)) throw new Error('no refusal');
    expect(next.bodyRefusal).toMatchObject({ status: 400, errorClass: 'invalid_request' });
    expect(next.bodyRefusal.message).toContain('nothing was sent to the gateway');
    expect(next.bodyRefusal.message).not.toContain('begun sending');
  });

  it('still says Airlock had begun sending when the failed step was sent', async () => {
    const { step, clientBody } = await routeWhileArriving();
    clientBody.arriving?.fail(new UploadTimedOutError(FIRST_READ_BYTES, body.length, 1000));
    const next = await step;
    if (next === null || !('bodyRefusal' in next)) throw new Error('no refusal');
    expect(next.bodyRefusal.message).toContain('Airlock had begun sending the body on');
  });
});

describe("the profile's key changed while a fallback step on another model waits for the body", () => {
  /** The profile's key as the window or the CLI leaves it: the test changes it while the body still arrives. */
  function changingKey() {
    let now: string | null = SENTINEL_KEY;
    const target: UpstreamTarget = { profile, apiKey: SENTINEL_KEY, keyNow: () => now };
    return { target, change: (key: string | null) => (now = key) };
  }

  it('a removed key: the step is skipped, not sent with it once the body is whole', async () => {
    const { target, change } = changingKey();
    const { req, trace, step } = await routeWhileArriving(undefined, undefined, target);
    change(null);
    req.end(body.subarray(FIRST_READ_BYTES));
    expect(await step).toBeNull();
    expect(trace.fallback?.chain.at(-1)).toMatchObject({ model: 'text-embedding-ada-002', note: expect.stringMatching(/was removed/) });
  });

  it('a replaced key: the step goes with the new one', async () => {
    const { target, change } = changingKey();
    const { req, step } = await routeWhileArriving(undefined, undefined, target);
    change(SECOND_SENTINEL_KEY);
    req.end(body.subarray(FIRST_READ_BYTES));
    const next = await step;
    if (next === null || !('plan' in next)) throw new Error('no step planned');
    expect(next.target.apiKey).toBe(SECOND_SENTINEL_KEY);
  });
});
