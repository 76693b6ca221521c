import type { RequestLogRow, UsageSource } from '../../contracts/log.ts';
import type { TokenUsage } from '../../contracts/usage.ts';
import type {
  RequestFallback,
  RequestLifecycleEvent,
  RequestStartEvent as StartEvent,
  RequestEndEvent as EndEvent,
} from '../../contracts/lifecycle.ts';
import { redactKnownSecrets, redactSecrets, redactsNone } from '../../core/redact.ts';

/** The events that change a row after it started (deltas only feed the live view). */
export type RowUpdateEvent = Extract<RequestLifecycleEvent, { type: 'headers' | 'usage' | 'progress' | 'end' }>;

/** A gateway may answer with another model name than the one asked for; case alone is no rewrite. */
export function modelsDiffer(upstreamModel: string | null, responseModel: string | null): boolean {
  if (upstreamModel === null || responseModel === null) return false;
  return upstreamModel.trim().toLowerCase() !== responseModel.trim().toLowerCase();
}

export function rowFromStart(event: StartEvent): RequestLogRow {
  return {
    id: event.requestId,
    upstreamRequestId: null,
    startedAtMs: event.startedAtMs,
    ttfbMs: null,
    durationMs: null,
    clientName: event.clientName,
    profileId: event.profileId,
    method: event.method,
    clientPath: event.clientPath,
    upstreamPath: event.upstreamPath,
    protocol: event.protocol,
    protocolMode: event.protocolMode,
    requestedModel: event.requestedModel,
    upstreamModel: event.upstreamModel,
    responseModel: null,
    modelMismatch: false,
    stream: event.stream,
    notes: event.notes,
    status: null,
    errorClass: null,
    errorMessage: null,
    errorCode: null,
    retries: 0,
    inputTokens: null,
    outputTokens: null,
    cachedInputTokens: null,
    reasoningTokens: null,
    costCredits: null,
    usageSource: null,
    state: 'in_flight',
    agentSessionId: null,
    summary: null,
    replayOf: event.replayOf ?? null,
  };
}

function withUsage(row: RequestLogRow, usage: TokenUsage | null, source: UsageSource): RequestLogRow {
  if (usage === null) return row;
  return {
    ...row,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens ?? null,
    reasoningTokens: usage.reasoningTokens ?? null,
    usageSource: source,
    ...(usage.gatewayCost === undefined ? {} : { gatewayCost: usage.gatewayCost }),
  };
}

function withResponseModel(row: RequestLogRow, responseModel: string | null): RequestLogRow {
  const model = responseModel ?? row.responseModel;
  return { ...row, responseModel: model, modelMismatch: modelsDiffer(row.upstreamModel, model) };
}

/** A request that fell back is the answering step's (its spend is that profile's), with the way it took. */
function withFallback(row: RequestLogRow, fallback: RequestFallback | undefined): RequestLogRow {
  if (fallback === undefined) return row;
  return { ...row, profileId: fallback.profileId, upstreamModel: fallback.upstreamModel, fallbackChain: fallback.chain };
}

/** The row after one more lifecycle event. */
export function applyRowEvent(row: RequestLogRow, event: RowUpdateEvent): RequestLogRow {
  switch (event.type) {
    case 'headers':
      return {
        ...withFallback(row, event.fallback),
        status: event.status,
        ttfbMs: event.ttfbMs,
        upstreamRequestId: event.upstreamRequestId ?? row.upstreamRequestId,
        retries: event.retries,
      };
    case 'usage':
      // A usage event carries what the upstream reported; estimates come with `progress` and `end`.
      return withResponseModel(withUsage(row, event.usage, 'reported'), event.responseModel);
    case 'progress':
      // An estimate never replaces what the upstream reported.
      if (row.usageSource === 'reported') return row;
      return { ...withUsage(row, event.usage, 'estimated'), costCredits: event.costCredits };
    case 'end':
      return endedRow(row, event);
  }
}

/**
 * The row completed by its `end`, as one new object: this runs for every request, and building it
 * through withFallback, withUsage and withResponseModel copied the row three times more.
 */
function endedRow(row: RequestLogRow, event: Extract<RowUpdateEvent, { type: 'end' }>): RequestLogRow {
  const { fallback, usage } = event;
  const upstreamModel = fallback === undefined ? row.upstreamModel : fallback.upstreamModel;
  const responseModel = event.responseModel ?? row.responseModel;
  const ended: RequestLogRow = {
    ...row,
    status: event.status,
    durationMs: event.durationMs,
    ttfbMs: event.ttfbMs ?? row.ttfbMs,
    retries: event.retries,
    errorClass: event.errorClass,
    errorMessage: event.errorMessage,
    errorCode: event.errorCode,
    upstreamRequestId: event.upstreamRequestId ?? row.upstreamRequestId,
    costCredits: event.costCredits,
    notes: event.logNotes === undefined ? row.notes : [...row.notes, ...event.logNotes],
    state: 'done',
    upstreamModel,
    responseModel,
    modelMismatch: modelsDiffer(upstreamModel, responseModel),
  };
  if (fallback !== undefined) {
    ended.profileId = fallback.profileId;
    ended.fallbackChain = fallback.chain;
  }
  if (event.gatewayKeys) ended.gatewayKeys = event.gatewayKeys;
  if (usage !== null) {
    ended.inputTokens = usage.inputTokens;
    ended.outputTokens = usage.outputTokens;
    ended.cachedInputTokens = usage.cachedInputTokens ?? null;
    ended.reasoningTokens = usage.reasoningTokens ?? null;
    ended.usageSource = event.usageSource ?? 'reported';
    if (usage.gatewayCost !== undefined) ended.gatewayCost = usage.gatewayCost;
  } else if (row.usageSource === 'estimated') {
    // The in-flight estimate only stood until the end: one that counts nothing (a 4xx, a request that never ran) drops it.
    ended.inputTokens = null;
    ended.outputTokens = null;
    ended.cachedInputTokens = null;
    ended.reasoningTokens = null;
    ended.usageSource = null;
  }
  return ended;
}

/**
 * Whether applying `end` alone gives the same row as applying `event` first: then `event` need
 * not be written. `end` sets status, retries and cost outright; the other fields only when it has them.
 */
export function isSupersededByEnd(
  event: Extract<RequestLifecycleEvent, { type: 'headers' | 'usage' | 'progress' }>,
  end: EndEvent,
): boolean {
  // An end replaces an estimate with its own usage, or drops it.
  if (event.type === 'progress') return true;
  if (event.type === 'headers') return end.ttfbMs !== null && (end.upstreamRequestId !== null || event.upstreamRequestId === null);
  return end.usage !== null && (end.responseModel !== null || event.responseModel === null);
}

/**
 * Free-text fields come from clients and upstreams, so they are masked like bodies. The gateway's
 * request id too (a gateway may build it from what it was sent), by `maskId`: support needs a long
 * random id whole, so only the secrets themselves go.
 */
export function maskRowText(row: RequestLogRow, mask: (text: string) => string, maskId: (text: string) => string = mask): RequestLogRow {
  const maskNullable = (text: string | null): string | null => (text === null ? null : mask(text));
  return {
    ...row,
    upstreamRequestId: row.upstreamRequestId === null ? null : maskId(row.upstreamRequestId),
    clientPath: mask(row.clientPath),
    upstreamPath: mask(row.upstreamPath),
    errorMessage: maskNullable(row.errorMessage),
    errorCode: maskNullable(row.errorCode),
    requestedModel: maskNullable(row.requestedModel),
    upstreamModel: maskNullable(row.upstreamModel),
    responseModel: maskNullable(row.responseModel),
    notes: row.notes.map(mask),
    agentSessionId: maskNullable(row.agentSessionId),
    summary: maskNullable(row.summary),
    ...(row.fallbackChain === undefined
      ? {}
      : {
          fallbackChain: row.fallbackChain.map((hop) => ({
            ...hop,
            model: maskNullable(hop.model),
            ...(hop.note === undefined ? {} : { note: mask(hop.note) }),
          })),
        }),
    // A label is the user's text: one pasted by mistake must not keep a key.
    ...(row.gatewayKeys ? { gatewayKeys: row.gatewayKeys.map((use) => ({ keyId: use.keyId, label: mask(use.label) })) } : {}),
  };
}

/**
 * The texts maskRowText masks with `mask` (the gateway's request id aside), found by running it
 * with a mask that only records: a field added there is checked here too, never left unmasked.
 */
function maskedFieldTexts(row: RequestLogRow): string[] {
  const texts: string[] = [];
  maskRowText(
    row,
    (text) => {
      texts.push(text);
      return text;
    },
    (id) => id,
  );
  return texts;
}

/**
 * The rows with their free text masked (maskRowText with redactSecrets, the gateway's id with
 * redactKnownSecrets). A row none of whose texts holds a secret is the row itself: one check over
 * its texts joined (redactsNone) instead of a dozen masking calls and a copy of the row.
 */
export function maskRows(rows: readonly RequestLogRow[], secrets: string[]): RequestLogRow[] {
  const mask = (text: string): string => redactSecrets(text, secrets);
  const maskId = (text: string): string => redactKnownSecrets(text, secrets);
  return rows.map((row) => {
    const idClean = row.upstreamRequestId === null || maskId(row.upstreamRequestId) === row.upstreamRequestId;
    return idClean && redactsNone(maskedFieldTexts(row), secrets) ? row : maskRowText(row, mask, maskId);
  });
}
