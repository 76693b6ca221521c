/**
 * Reads a large request body into its turns off the window's main thread: parsing a Claude Code or
 * Codex body of several MB and walking its history would stall the window for the whole read.
 * Bundled by Vite as a worker of its own (turnReader.ts starts it).
 */
import { requestTurns } from './conversation.ts';
import type { TurnsAsked, TurnsRead } from './turnReader.ts';

self.onmessage = (event: MessageEvent<TurnsAsked>) => {
  const answer: TurnsRead = { id: event.data.id, turns: requestTurns(event.data.bodyText) };
  self.postMessage(answer);
};
