import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { buildPlan } from '../../../proxy/forward/planner.ts';
import { parseClientBodyOnLoop, type ClientBody } from '../../../proxy/forward/requestBody.ts';
import { scanTopLevel } from '../../support/scanTopLevel.ts';

// The body a plan sends is one buffer, and what Airlock keeps of the client's (for a retry, a fallback
// step and the log) is views of it: the body is held once, not twice (sharedBody.ts).
const PROFILE = profileSchema.parse({
  id: 'work',
  name: 'Work',
  baseUrl: 'https://gw.example/v1',
  modelAliases: { fast: 'gpt-4o-mini' },
});

/** A streamed chat body in three socket reads, its model an alias: the plan splices the model and asks for usage. */
function chatInReads(): ClientBody {
  const text = `{"model":"fast","stream":true,"messages":[{"role":"user","content":"${'x'.repeat(200 * 1024)}"}]}`;
  const bytes = Buffer.from(text);
  const chunks = [bytes.subarray(0, 10), bytes.subarray(10, 100 * 1024), bytes.subarray(100 * 1024)].map((piece) => Buffer.from(piece));
  return { chunks, byteLength: bytes.length, scan: scanTopLevel(chunks) };
}

describe('a planned body held once', () => {
  it("keeps the client's bytes as views of the buffer it sends, but for the bytes an edit replaced", async () => {
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
    expect(Buffer.concat(body.chunks).equals(clientBytes)).toBe(true);
    const apart = body.chunks.filter((view) => view.buffer !== sent.buffer);
    // Only the client's model id is kept apart from the sent buffer.
    expect(apart.map((view) => view.toString('utf8'))).toEqual(['"fast"']);
  });
});
