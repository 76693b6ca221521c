/** What to count: a Chat Completions (or Anthropic Messages) JSON body, or plain text. */
export type TokenCountRequest = { kind: 'chat'; json: Uint8Array } | { kind: 'text'; text: string };

/** Main thread → tokenizer thread. */
export type ToTokenizerThread = TokenCountRequest & { id: number };

/** Tokenizer thread → main thread. */
export interface FromTokenizerThread {
  id: number;
  tokens: number;
}
