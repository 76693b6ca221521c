import type { ErrorClass } from './errors.ts';

/**
 * Replay: a logged request sent again through the proxy, optionally edited. Shared by the control
 * API (`POST /requests/:id/replay`), the window and `airlock replay`.
 */

/** POST /requests/:id/replay */
export interface ReplayRequest {
  /** The whole body to send instead of the logged one (JSON text for the model endpoints); absent: the logged body. */
  body?: string;
  /** Send through this profile instead of the original's. */
  profileId?: string;
  /** Required to replay an image or video creation: the original's key is not logged, and a creation must not run twice unasked. */
  idempotencyKey?: string;
}

/** Why a replay was not sent, and the fix; the control API answers it as a 409 (`conflict`) or 400 (`invalid`). */
export type ReplayRefusalCode =
  | 'not_a_request'
  | 'path_redacted'
  | 'body_not_stored'
  | 'body_truncated'
  | 'body_redacted'
  | 'invalid_json'
  | 'side_effect_without_key'
  | 'no_profile';

/** One side of the comparison: what the log holds for the original or for the replay. */
export interface ReplaySide {
  id: string;
  status: number | null;
  errorClass: ErrorClass | null;
  errorMessage: string | null;
  /** The model that answered (else the one asked for). */
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  usageEstimated: boolean;
  /** null = unpriced or not charged. */
  costCredits: number | null;
  durationMs: number | null;
  /** The answer's text (streamed text, or the text read from the JSON answer); null when there is none. */
  answerText: string | null;
}

/** One run of the answer texts' word diff: unchanged, only in the original (`removed`), only in the replay (`added`). */
export interface AnswerDiffPart {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** Replay minus original; null where either side has no figure. */
export interface ReplayDifference {
  statusChanged: boolean;
  inputTokens: number | null;
  outputTokens: number | null;
  costCredits: number | null;
  durationMs: number | null;
  answerChanged: boolean;
  /** null when either side has no answer text, or the texts are too long to compare word by word. */
  answerDiff: AnswerDiffPart[] | null;
}

/** The answer to a replay: both sides and their difference, once the replay's row is in the log. */
export interface ReplayResponse {
  replayOf: string;
  replayId: string;
  /** The profile the replay went through (the original's unless another was chosen). */
  profileId: string;
  edited: boolean;
  original: ReplaySide;
  replay: ReplaySide;
  difference: ReplayDifference;
}
