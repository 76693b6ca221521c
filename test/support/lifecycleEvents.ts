import type { CapturedBodies, RequestLifecycleEvent } from '../../proxy/contracts/lifecycle.ts';

type StartEvent = Extract<RequestLifecycleEvent, { type: 'start' }>;
type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

/** When synthetic requests start by default; logs in tests use a clock just after it. */
export const TEST_STARTED_AT_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
export const TEST_NOW_MS = TEST_STARTED_AT_MS + 3_600_000;

/** Synthetic lifecycle events, as the forwarding pipeline publishes them. */
export function startEvent(requestId: string, overrides: Partial<StartEvent> = {}): StartEvent {
  return {
    type: 'start',
    requestId,
    startedAtMs: TEST_STARTED_AT_MS,
    method: 'POST',
    clientPath: '/v1/chat/completions',
    upstreamPath: '/chat/completions',
    profileId: 'default',
    clientName: 'cli',
    protocol: 'openai',
    protocolMode: 'native',
    requestedModel: 'gpt-4o',
    upstreamModel: 'gpt-4o',
    stream: false,
    notes: [],
    ...overrides,
  };
}

export function capturedBodies(overrides: Partial<CapturedBodies> = {}): CapturedBodies {
  return {
    requestHeaders: { 'content-type': 'application/json' },
    responseHeaders: { 'content-type': 'application/json' },
    requestBody: Buffer.from('{"model":"gpt-4o","messages":[{"role":"user","content":"hello"}]}'),
    requestBodyTruncated: false,
    responseBody: Buffer.from('{"choices":[{"message":{"content":"hi there"}}]}'),
    responseBodyTruncated: false,
    streamText: null,
    ...overrides,
  };
}

export function endEvent(requestId: string, overrides: Partial<EndEvent> = {}): EndEvent {
  return {
    type: 'end',
    requestId,
    status: 200,
    durationMs: 120,
    ttfbMs: 40,
    retries: 0,
    errorClass: null,
    errorMessage: null,
    errorCode: null,
    responseModel: 'gpt-4o',
    upstreamRequestId: `up-${requestId}`,
    usage: { inputTokens: 10, outputTokens: 5 },
    usageSource: 'reported',
    costCredits: 0.25,
    bodies: capturedBodies(),
    ...overrides,
  };
}
