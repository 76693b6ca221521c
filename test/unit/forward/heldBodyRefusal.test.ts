import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRefusal } from '../../../proxy/contracts/ports.ts';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { exchange } from '../../../proxy/forward/exchange.ts';
import type { ExchangePlan } from '../../../proxy/forward/plan.ts';
import type { HeldTarget } from '../../../proxy/forward/stageRecords.ts';
import { RequestTrace } from '../../../proxy/forward/trace.ts';

// A held profile's request goes straight to its fallback list; when the body's own refusal ends
// that walk, the client is told as on the loop's path, whether a retry can help included.
const profile = profileSchema.parse({ id: 'held', name: 'Held', baseUrl: 'http://127.0.0.1:9/v1' });
const held = {
  profile,
  secrets: [],
  unsent: {
    kind: 'unsent',
    status: 429,
    errorClass: 'rate_limited',
    refusal: { status: 429, errorClass: 'keys_cooling', message: 'every key of the pool is cooling' },
  },
} as unknown as HeldTarget;

let bodyRefusal: LocalRefusal;
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    const trace = new RequestTrace(new RequestEvents(), 1024 * 1024);
    void exchange({
      req,
      res,
      plan: { protocol: 'openai', upstreamModel: 'gpt-4o', upstreamPath: 'chat/completions' } as unknown as ExchangePlan,
      target: held,
      trace,
      fallback: { next: async () => ({ bodyRefusal }) },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function answerOf(refusal: LocalRefusal): Promise<IncomingMessage> {
  bodyRefusal = refusal;
  const req = request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { method: 'POST' });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  res.resume();
  await once(res, 'end');
  return res;
}

describe("a held profile's request whose body is refused while it waits for a fallback step", () => {
  it('is told not to retry when its body contradicts the plan (a 400 the same request gets again)', async () => {
    const res = await answerOf({ status: 400, errorClass: 'invalid_request', message: 'the end contradicts the start' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['x-should-retry']).toBe('false');
  });

  it('may retry a stalled upload: its 408 carries no such header', async () => {
    const res = await answerOf({ status: 408, errorClass: 'upload_stalled', message: 'the upload stalled' });
    expect(res.statusCode).toBe(408);
    expect(res.headers['x-should-retry']).toBeUndefined();
  });
});
