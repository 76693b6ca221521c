import type { RequestBodiesRecord, StoredRequest, RequestLogRow } from '../../../../proxy/contracts/log.ts';

/** A finished, priced, non-streamed chat request; each test overrides what it is about. */
export function logRow(overrides: Partial<RequestLogRow> = {}): RequestLogRow {
  return {
    id: 'alk_1700000000000_a',
    upstreamRequestId: 'req-1',
    startedAtMs: Date.UTC(2026, 10, 20, 9, 30, 0),
    ttfbMs: 120,
    durationMs: 450,
    clientName: 'claude-code',
    profileId: 'main',
    method: 'POST',
    clientPath: '/v1/chat/completions',
    upstreamPath: '/v1/chat/completions',
    protocol: 'openai',
    protocolMode: 'native',
    requestedModel: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    responseModel: 'gpt-4o-mini-2024-07-18',
    modelMismatch: false,
    stream: false,
    notes: [],
    status: 200,
    errorClass: null,
    errorMessage: null,
    errorCode: null,
    retries: 0,
    inputTokens: 12,
    outputTokens: 8,
    cachedInputTokens: null,
    reasoningTokens: null,
    costCredits: 0.0042,
    usageSource: 'reported',
    state: 'done',
    agentSessionId: null,
    summary: null,
    replayOf: null,
    ...overrides,
  };
}

export function logBodies(overrides: Partial<RequestBodiesRecord> = {}): RequestBodiesRecord {
  return {
    requestHeaders: { 'content-type': 'application/json', 'user-agent': 'claude-cli/2.1' },
    responseHeaders: { 'content-type': 'application/json', 'x-request-id': 'req-1' },
    requestBody: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}',
    requestTruncated: false,
    responseBody: '{"id":"chatcmpl-1","choices":[{"message":{"role":"assistant","content":"hello"}}]}',
    responseTruncated: false,
    streamText: null,
    rawEvents: null,
    rawEventOffsetsMs: null,
    ...overrides,
  };
}

export function logDetail(row: Partial<RequestLogRow> = {}, bodies: Partial<RequestBodiesRecord> | null = {}): StoredRequest {
  return { row: logRow(row), bodies: bodies === null ? null : logBodies(bodies) };
}
