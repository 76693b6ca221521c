import type { CapturedBodies, RequestLifecycleEvent } from '../../../proxy/events/lifecycle.ts';

type StartEvent = Extract<RequestLifecycleEvent, { type: 'start' }>;
type EndEvent = Extract<RequestLifecycleEvent, { type: 'end' }>;

/** Synthetic lifecycle events, as the forwarding pipeline publishes them. */
export function startEvent(requestId: string, overrides: Partial<StartEvent> = {}): StartEvent {
  return {
    type: 'start',
    requestId,
    startedAtMs: 1_750_000_000_000,
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
    responseModel: 'gpt-4o',
    upstreamRequestId: `up-${requestId}`,
    usage: { inputTokens: 10, outputTokens: 5 },
    bodies: capturedBodies(),
    ...overrides,
  };
}
