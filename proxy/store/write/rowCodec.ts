import type { ErrorClass } from '../../contracts/errors.ts';
import type { FallbackHop, RequestBodiesRecord, RequestLogRow, RequestState, UsageSource } from '../../contracts/log.ts';
import type { ClientProtocol, ProtocolMode } from '../../contracts/usage.ts';
import { packEventOffsets, unpackEventOffsets } from '../../core/eventOffsets.ts';

/** Column order shared by the insert statement and `rowToParams`. */
export const REQUEST_COLUMNS = [
  'id',
  'upstream_request_id',
  'started_at_ms',
  'ttfb_ms',
  'duration_ms',
  'client_name',
  'profile_id',
  'method',
  'client_path',
  'upstream_path',
  'protocol',
  'protocol_mode',
  'requested_model',
  'upstream_model',
  'response_model',
  'model_mismatch',
  'stream',
  'notes',
  'status',
  'error_class',
  'error_message',
  'retries',
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'reasoning_tokens',
  'cost_credits',
  'usage_source',
  'state',
  'agent_session_id',
  'summary',
  'fallback_chain',
  'gateway_keys',
  'replay_of',
  'gateway_cost',
  'error_code',
] as const;

/**
 * The columns a lifecycle event after `start` can change (see applyRowEvent). A second write of a
 * row sets only these: SQLite rewrites every index over a column named in SET, changed or not.
 */
export const COLUMNS_SET_AFTER_START = [
  'upstream_request_id',
  // The log's queue notes at the end what it did not keep (bodies, while it was behind).
  'notes',
  'ttfb_ms',
  'duration_ms',
  'response_model',
  'model_mismatch',
  'status',
  'error_class',
  'error_message',
  'error_code',
  'retries',
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'reasoning_tokens',
  'cost_credits',
  'usage_source',
  'state',
  'agent_session_id',
  'summary',
  'fallback_chain',
  'gateway_keys',
  'gateway_cost',
] as const satisfies ReadonlyArray<(typeof REQUEST_COLUMNS)[number]>;

type SqlValue = string | number | null | Uint8Array;
type SqlRecord = Record<string, unknown>;

export function rowToParams(row: RequestLogRow): SqlValue[] {
  return [
    row.id,
    row.upstreamRequestId,
    row.startedAtMs,
    row.ttfbMs,
    row.durationMs,
    row.clientName,
    row.profileId,
    row.method,
    row.clientPath,
    row.upstreamPath,
    row.protocol,
    row.protocolMode,
    row.requestedModel,
    row.upstreamModel,
    row.responseModel,
    row.modelMismatch ? 1 : 0,
    row.stream ? 1 : 0,
    JSON.stringify(row.notes),
    row.status,
    row.errorClass,
    row.errorMessage,
    row.retries,
    row.inputTokens,
    row.outputTokens,
    row.cachedInputTokens,
    row.reasoningTokens,
    row.costCredits,
    row.usageSource,
    row.state,
    row.agentSessionId,
    row.summary,
    row.fallbackChain === undefined ? null : JSON.stringify(row.fallbackChain),
    row.gatewayKeys === undefined ? null : JSON.stringify(row.gatewayKeys),
    row.replayOf,
    row.gatewayCost ?? null,
    row.errorCode,
  ];
}

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const numeric = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

export function rowFromRecord(record: SqlRecord): RequestLogRow {
  return {
    id: String(record.id),
    upstreamRequestId: text(record.upstream_request_id),
    startedAtMs: Number(record.started_at_ms),
    ttfbMs: numeric(record.ttfb_ms),
    durationMs: numeric(record.duration_ms),
    clientName: text(record.client_name),
    profileId: text(record.profile_id),
    method: String(record.method),
    clientPath: String(record.client_path),
    upstreamPath: String(record.upstream_path),
    protocol: String(record.protocol) as ClientProtocol,
    protocolMode: String(record.protocol_mode) as ProtocolMode,
    requestedModel: text(record.requested_model),
    upstreamModel: text(record.upstream_model),
    responseModel: text(record.response_model),
    modelMismatch: record.model_mismatch === 1,
    stream: record.stream === 1,
    notes: parseNotes(record.notes),
    status: numeric(record.status),
    errorClass: text(record.error_class) as ErrorClass | null,
    errorMessage: text(record.error_message),
    errorCode: text(record.error_code),
    retries: Number(record.retries),
    inputTokens: numeric(record.input_tokens),
    outputTokens: numeric(record.output_tokens),
    cachedInputTokens: numeric(record.cached_input_tokens),
    reasoningTokens: numeric(record.reasoning_tokens),
    costCredits: numeric(record.cost_credits),
    usageSource: text(record.usage_source) as UsageSource | null,
    state: String(record.state) as RequestState,
    agentSessionId: text(record.agent_session_id),
    summary: text(record.summary),
    ...fallbackChainOf(record.fallback_chain),
    ...gatewayKeysOf(record.gateway_keys),
    replayOf: text(record.replay_of),
    ...(record.gateway_cost === null || record.gateway_cost === undefined ? {} : { gatewayCost: Number(record.gateway_cost) }),
  };
}

function gatewayKeysOf(json: unknown): Pick<RequestLogRow, 'gatewayKeys'> {
  if (json === null || json === undefined) return {};
  const parsed: unknown = JSON.parse(String(json));
  if (!Array.isArray(parsed)) return {};
  return {
    gatewayKeys: parsed.map((use: { keyId?: unknown; label?: unknown }) => ({ keyId: String(use.keyId), label: String(use.label) })),
  };
}

function fallbackChainOf(json: unknown): Pick<RequestLogRow, 'fallbackChain'> {
  if (json === null || json === undefined) return {};
  const parsed: unknown = JSON.parse(String(json));
  return Array.isArray(parsed) ? { fallbackChain: parsed as FallbackHop[] } : {};
}

function parseNotes(json: unknown): string[] {
  const parsed: unknown = JSON.parse(String(json ?? '[]'));
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

export function parseHeaders(json: unknown): Record<string, string> {
  const parsed: unknown = JSON.parse(String(json ?? '{}'));
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
}

export function bodiesFromRecord(record: SqlRecord): RequestBodiesRecord {
  return {
    requestHeaders: parseHeaders(record.request_headers),
    responseHeaders: parseHeaders(record.response_headers),
    requestBody: text(record.request_body),
    requestTruncated: record.request_truncated === 1,
    responseBody: text(record.response_body),
    responseTruncated: record.response_truncated === 1,
    streamText: text(record.stream_text),
    rawEvents: text(record.raw_events),
    rawEventOffsetsMs: record.raw_event_offsets instanceof Uint8Array ? unpackEventOffsets(record.raw_event_offsets) : null,
  };
}

/** Bytes a body record takes as text; retention uses it to pick how many bodies to drop. */
export function storedBytesOf(record: RequestBodiesRecord): number {
  const parts = [record.requestBody, record.responseBody, record.streamText, record.rawEvents];
  return parts.reduce((sum, part) => sum + (part === null ? 0 : Buffer.byteLength(part, 'utf8')), 0);
}

/** `textBytes`: storedBytesOf(record), which the caller needs too (measuring UTF-8 costs about 1 us a KB). */
export function bodiesToParams(requestId: string, record: RequestBodiesRecord, textBytes: number): SqlValue[] {
  const offsets = record.rawEventOffsetsMs === null ? null : packEventOffsets(record.rawEventOffsetsMs);
  return [
    requestId,
    JSON.stringify(record.requestHeaders),
    JSON.stringify(record.responseHeaders),
    record.requestBody,
    record.requestTruncated ? 1 : 0,
    record.responseBody,
    record.responseTruncated ? 1 : 0,
    record.streamText,
    record.rawEvents,
    offsets,
    textBytes + (offsets?.length ?? 0),
  ];
}
