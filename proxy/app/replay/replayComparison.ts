import { diffWordsWithSpace } from 'diff';
import type { RequestStartEvent as StartEvent, RequestEndEvent as EndEvent } from '../../contracts/lifecycle.ts';
import type { StoredRequest } from '../../contracts/log.ts';
import type { AnswerDiffPart, ReplayDifference, ReplaySide } from '../../contracts/replay.ts';
import { redactSecrets } from '../../core/redact.ts';
import { answerTexts } from '../../protocols/messageText.ts';
import { capturedBodyText } from '../../store/write/bodyRecord.ts';

/** Past these the word diff is left out (the texts are still shown side by side): it costs O(n·d). */
const MAX_DIFF_TEXT_CHARS = 50_000;
const MAX_DIFF_EDITS = 2_000;

/**
 * The answer's text from a JSON answer in any of the three protocols; null when it holds none. Its
 * parts run together, as a stream's text deltas do, so a JSON answer compares with a streamed one;
 * joined, they are masked again: the log masked the body, where a key split across two parts
 * (Mistral's content parts) was in no part whole.
 */
export function answerTextOfJson(body: string, knownSecrets: string[]): string | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  const parts = answerTexts(value);
  return parts.length === 0 ? null : redactSecrets(parts.join(''), knownSecrets);
}

/** What the log holds of one side: figures from the row, the answer's text from its bodies. */
export function replaySideOf(detail: StoredRequest, knownSecrets: string[]): ReplaySide {
  const { row, bodies } = detail;
  const answerText =
    bodies === null
      ? null
      : (bodies.streamText ?? (bodies.responseBody === null ? null : answerTextOfJson(bodies.responseBody, knownSecrets)));
  return {
    id: row.id,
    status: row.status,
    errorClass: row.errorClass,
    errorMessage: row.errorMessage,
    model: row.responseModel ?? row.upstreamModel ?? row.requestedModel,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    usageEstimated: row.usageSource === 'estimated',
    costCredits: row.costCredits,
    durationMs: row.durationMs,
    answerText,
  };
}

/**
 * One side read from a replay's own start and end, for a replay whose row the log could not write
 * (a full disk): the figures the row would hold, and the answer's text masked as the log masks it.
 */
export function replaySideOfEvents(start: StartEvent, end: EndEvent, knownSecrets: string[]): ReplaySide {
  const masked = (text: string | null): string | null => (text === null ? null : redactSecrets(text, knownSecrets));
  const { bodies } = end;
  const responseBody = masked(capturedBodyText(bodies.responseBody, bodies.responseHeaders, bodies.responseBodyTruncated));
  return {
    id: end.requestId,
    status: end.status,
    errorClass: end.errorClass,
    errorMessage: masked(end.errorMessage),
    model: masked(end.responseModel ?? end.fallback?.upstreamModel ?? start.upstreamModel ?? start.requestedModel),
    inputTokens: end.usage?.inputTokens ?? null,
    outputTokens: end.usage?.outputTokens ?? null,
    usageEstimated: end.usageSource === 'estimated',
    costCredits: end.costCredits,
    durationMs: end.durationMs,
    answerText: masked(bodies.streamText) ?? (responseBody === null ? null : answerTextOfJson(responseBody, knownSecrets)),
  };
}

function minus(replay: number | null, original: number | null): number | null {
  return replay === null || original === null ? null : replay - original;
}

/** The answers' word diff, or null when either is missing or they are too long to compare here. */
export function answerDiff(original: string | null, replay: string | null): AnswerDiffPart[] | null {
  if (original === null || replay === null) return null;
  if (original.length > MAX_DIFF_TEXT_CHARS || replay.length > MAX_DIFF_TEXT_CHARS) return null;
  const changes = diffWordsWithSpace(original, replay, { maxEditLength: MAX_DIFF_EDITS });
  if (changes === undefined) return null;
  return changes.map((change) => ({ kind: change.added ? 'added' : change.removed ? 'removed' : 'same', text: change.value }));
}

/** Replay minus original, figure by figure, and whether the answer changed. */
export function replayDifference(original: ReplaySide, replay: ReplaySide): ReplayDifference {
  return {
    statusChanged: original.status !== replay.status,
    inputTokens: minus(replay.inputTokens, original.inputTokens),
    outputTokens: minus(replay.outputTokens, original.outputTokens),
    costCredits: minus(replay.costCredits, original.costCredits),
    durationMs: minus(replay.durationMs, original.durationMs),
    answerChanged: original.answerText !== replay.answerText,
    answerDiff: answerDiff(original.answerText, replay.answerText),
  };
}
