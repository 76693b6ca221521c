import { diffWordsWithSpace } from 'diff';
import type { RequestDetail } from '../../contracts/log.ts';
import type { AnswerDiffPart, ReplayDifference, ReplaySide } from '../../contracts/replay.ts';

/** Past these the word diff is left out (the texts are still shown side by side): it costs O(n·d). */
const MAX_DIFF_TEXT_CHARS = 50_000;
const MAX_DIFF_EDITS = 2_000;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Text parts of a content value: a string, or blocks with `text` (Messages `text`, Responses `output_text`, chat parts). */
function contentText(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  return arrayOf(content).flatMap((block) =>
    isObject(block) && typeof block.text === 'string' && (block.type === undefined || /text/.test(String(block.type))) ? [block.text] : [],
  );
}

/**
 * The answer's text from a JSON answer in any of the three protocols: chat's `choices[].message.content`,
 * Messages' `content[]` text blocks, Responses' `output[].content[]` text parts. null when it holds none.
 */
export function answerTextOfJson(body: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isObject(value)) return null;
  const parts = [
    ...arrayOf(value.choices).flatMap((choice) =>
      isObject(choice) && isObject(choice.message) ? contentText(choice.message.content) : [],
    ),
    ...(value.type === 'message' ? contentText(value.content) : []),
    ...arrayOf(value.output).flatMap((item) => (isObject(item) && item.type === 'message' ? contentText(item.content) : [])),
  ];
  return parts.length === 0 ? null : parts.join('');
}

/** What the log holds of one side: figures from the row, the answer's text from its bodies. */
export function replaySideOf(detail: RequestDetail): ReplaySide {
  const { row, bodies } = detail;
  const answerText =
    bodies === null ? null : (bodies.streamText ?? (bodies.responseBody === null ? null : answerTextOfJson(bodies.responseBody)));
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
