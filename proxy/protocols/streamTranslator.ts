/**
 * The common shape of the stream translators: Chat Completions chunks in, complete SSE frames
 * (strings to write in order) out. After finish() or fail() every call returns no frames.
 */

export interface StreamFailure {
  /** Anthropic: the error type (api_error, overloaded_error, ...). Responses: the error code. */
  type: string;
  message: string;
}

export interface ChatStreamTranslator {
  push(chunk: object): string[];
  /**
   * The upstream stream ended ([DONE] or end of body). Without a finish_reason seen, the reply
   * is incomplete and this fails the stream instead of pretending it completed.
   */
  finish(): string[];
  fail(error: StreamFailure): string[];
}

export const STREAM_ENDED_EARLY_MESSAGE = 'the upstream stream ended before the reply was finished';
