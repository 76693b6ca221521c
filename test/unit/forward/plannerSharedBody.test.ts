import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { buildPlan } from '../../../proxy/forward/planner.ts';
import { plan as planStage } from '../../../proxy/forward/planRequest.ts';
import type { Admitted, Planned } from '../../../proxy/forward/stageRecords.ts';
import { RequestTrace } from '../../../proxy/forward/trace.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { parseClientBodyOnLoop, type ClientBody } from '../../../proxy/forward/requestBody.ts';
import { scanTopLevel } from '../../support/scanTopLevel.ts';

// The body a plan sends is one buffer, and what Airlock keeps of the client's (for a retry, a fallback
// step and the log) is views of it: the body is held once, not twice (sharedBody.ts).
const PROFILE = profileSchema.parse({
  id: 'work',
  name: 'Work',
  baseUrl: 'https://gw.example/v1',
  modelAliases: { fast: 'gpt-4o-mini' },
  fallbacks: [{ model: 'gpt-4o' }],
});

/** A streamed chat body in three socket reads, its model an alias: the plan splices the model and asks for usage. */
function chatInReads(): ClientBody {
  const text = `{"model":"fast","stream":true,"messages":[{"role":"user","content":"${'x'.repeat(200 * 1024)}"}]}`;
  const bytes = Buffer.from(text);
  const chunks = [bytes.subarray(0, 10), bytes.subarray(10, 100 * 1024), bytes.subarray(100 * 1024)].map((piece) => Buffer.from(piece));
  return { chunks, byteLength: bytes.length, scan: scanTopLevel(chunks) };
}

describe('a planned body held once', () => {
  it("gives the client's bytes to keep as views of the buffer it sends, but for the bytes an edit replaced", async () => {
    const body = chatInReads();
    const clientBytes = Buffer.concat(body.chunks);
    const plan = await buildPlan({
      method: 'POST',
      path: 'chat/completions',
      query: '',
      pathModel: null,
      protocol: 'openai',
      body,
      parsed: parseClientBodyOnLoop(body, 'application/json'),
      contentType: 'application/json',
      identity: { tokenName: null, pinnedProfileId: null },
      target: { profile: PROFILE },
    });
    if ('refusal' in plan) throw new Error(plan.refusal.message);
    expect(plan.body).toHaveLength(1);
    const sent = plan.body![0]!;
    expect(sent.toString('utf8')).toContain('"model":"gpt-4o-mini"');
    const kept = plan.clientChunks!;
    expect(Buffer.concat(kept).equals(clientBytes)).toBe(true);
    const apart = kept.filter((view) => view.buffer !== sent.buffer);
    // Only the client's model id is kept apart from the sent buffer.
    expect(apart.map((view) => view.toString('utf8'))).toEqual(['"fast"']);
  });

  it("keeps the client's bytes for the exchange (its fallback steps) as those views", async () => {
    const body = chatInReads();
    const req = Object.assign(new PassThrough(), {
      url: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', 'content-length': String(body.byteLength) },
    });
    const admitted = {
      req,
      res: { writeContinue: () => undefined },
      trace: new RequestTrace(new RequestEvents(), 1024 * 1024),
      method: 'POST',
      path: 'chat/completions',
      query: '',
      pathModel: null,
      protocol: 'openai',
      stop: { signal: new AbortController().signal, exchangeStarts: () => undefined },
      identity: { tokenName: 'tests', pinnedProfileId: null },
      target: { profile: PROFILE, apiKey: SENTINEL_KEY },
    } as unknown as Admitted & { req: IncomingMessage; res: ServerResponse };
    const planning = planStage(admitted, {});
    for (const chunk of body.chunks) req.write(chunk);
    req.end();
    const planned = (await planning) as Planned;
    const sent = planned.plan.body![0]!;
    expect(planned.clientBody?.chunks.filter((view) => view.buffer !== sent.buffer).map(String)).toEqual(['"fast"']);
  });
});
