import type { RequestSummary } from '../../contracts/requests.ts';
import { IN_FLIGHT_SUMMARY_DEFAULTS, LIVE_TEXT_LIMIT_CHARS, type LiveRequestUpdate } from '../../contracts/liveEvents.ts';
import { agentSessionIdOf } from '../../core/agentSessionHeader.ts';
import type { RequestLifecycleEvent } from '../../contracts/lifecycle.ts';

/**
 * What one lifecycle event changes in the window's row for that request. Pure: the live hub feeds
 * the result to the coalescer. Bodies in the end event stay in the proxy (the log stores them).
 */
export function updateFromEvent(event: RequestLifecycleEvent): LiveRequestUpdate {
  const requestId = event.requestId;
  switch (event.type) {
    case 'start':
      return {
        requestId,
        appendText: '',
        fields: {
          ...IN_FLIGHT_SUMMARY_DEFAULTS,
          id: requestId,
          startedAtMs: event.startedAtMs,
          clientName: event.clientName,
          profileId: event.profileId,
          method: event.method,
          clientPath: event.clientPath,
          requestedModel: event.requestedModel,
          stream: event.stream,
          replayOf: event.replayOf ?? null,
        },
      };
    case 'headers':
      return {
        requestId,
        appendText: '',
        fields: {
          status: event.status,
          ttfbMs: event.ttfbMs,
          ...(event.fallback ? { profileId: event.fallback.profileId, fallbackChain: event.fallback.chain } : {}),
        },
      };
    case 'delta':
      return { requestId, appendText: event.text, fields: {} };
    case 'request':
      // The hub keeps the request for the detail view; the row learns its session from a header (no body is parsed here).
      return { requestId, appendText: '', fields: { agentSessionId: agentSessionIdOf(event.requestHeaders) } };
    case 'usage':
      return {
        requestId,
        appendText: '',
        fields: { inputTokens: event.usage.inputTokens, outputTokens: event.usage.outputTokens, responseModel: event.responseModel },
      };
    case 'progress':
      return {
        requestId,
        appendText: '',
        fields: {
          inputTokens: event.usage.inputTokens,
          outputTokens: event.usage.outputTokens,
          costCredits: event.costCredits,
          usageEstimated: true,
        },
      };
    case 'end': {
      const fields: Partial<RequestSummary> = {
        state: 'done',
        status: event.status,
        durationMs: event.durationMs,
        ttfbMs: event.ttfbMs,
        errorClass: event.errorClass,
        responseModel: event.responseModel,
        costCredits: event.costCredits,
        usageEstimated: event.usageSource === 'estimated',
      };
      if (event.fallback) {
        fields.profileId = event.fallback.profileId;
        fields.fallbackChain = event.fallback.chain;
      }
      if (event.usage) {
        fields.inputTokens = event.usage.inputTokens;
        fields.outputTokens = event.usage.outputTokens;
      }
      return { requestId, appendText: '', fields };
    }
  }
}

/**
 * Unmasked text kept past what a window shows: a key the cut falls inside stays whole, so the mask
 * finds it before the text is cut to the window's limit (`maskedText`). Longer than any gateway key.
 */
const UNMASKED_MARGIN_CHARS = 4_096;
const KEPT_TEXT_CHARS = LIVE_TEXT_LIMIT_CHARS + UNMASKED_MARGIN_CHARS;

/**
 * A stream's text with more appended, its tail only: a window shows no more, and a burst must not
 * make a frame of a whole answer. Cut once it is twice the tail, so a token costs no copy of it.
 */
export function textTail(text: string, appended: string): string {
  if (appended.length >= KEPT_TEXT_CHARS) return appended.slice(-KEPT_TEXT_CHARS);
  const joined = text + appended;
  return joined.length > 2 * KEPT_TEXT_CHARS ? joined.slice(-KEPT_TEXT_CHARS) : joined;
}

/** Text masked, then cut to what a window shows. */
export function maskedText(text: string, mask: (text: string) => string): string {
  return text === '' ? text : mask(text).slice(-LIVE_TEXT_LIMIT_CHARS);
}

/**
 * Merges an update into the pending ones for the next frame: one entry per request, fields
 * replaced (later wins), text appended in order (its tail: textTail). Keeps first-seen order so
 * starts precede ends.
 */
export function mergeUpdate(pending: Map<string, LiveRequestUpdate>, update: LiveRequestUpdate): void {
  const existing = pending.get(update.requestId);
  const merged = existing ?? { requestId: update.requestId, fields: {}, appendText: '' };
  if (!existing) pending.set(update.requestId, merged);
  Object.assign(merged.fields, update.fields);
  merged.appendText = textTail(merged.appendText, update.appendText);
}
