/**
 * Reads a large body off the window's main thread (bodyReader.ts starts it and says why): a request
 * body into its turns for the conversation, or any body into its tree for the body panel.
 * Bundled by Vite as a worker of its own.
 */
import type { BodyAsked, BodyRead, Readings } from './bodyReader.ts';
import { readBodyTree } from './bodyTree.ts';
import { requestTurns } from './conversation.ts';

const READINGS: { [K in keyof Readings]: (bodyText: string) => Readings[K] } = { turns: requestTurns, tree: readBodyTree };

self.onmessage = (event: MessageEvent<BodyAsked>) => {
  const answer: BodyRead = { id: event.data.id, answer: READINGS[event.data.reading](event.data.bodyText) };
  self.postMessage(answer);
};
