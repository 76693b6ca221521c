import { createContext } from 'react';
import type { Turn } from './conversation.ts';

/** Reads a request body into its turns (null when it is no conversation), off the main thread. */
export type ReadTurns = (bodyText: string) => Promise<Turn[] | null>;

/** What the window asks the conversation worker, and what it answers. */
export interface TurnsAsked {
  id: number;
  bodyText: string;
}
export interface TurnsRead {
  id: number;
  turns: Turn[] | null;
}

let worker: Worker | null = null;
let lastId = 0;
const pending = new Map<number, { resolve: (turns: Turn[] | null) => void; reject: (error: Error) => void }>();

/** One worker for the window, started at the first large body; answers come back by id. */
const readTurnsInWorker: ReadTurns = (bodyText) => {
  if (worker === null) {
    worker = new Worker(new URL('./conversationWorker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<TurnsRead>) => {
      pending.get(event.data.id)?.resolve(event.data.turns);
      pending.delete(event.data.id);
    };
    // A worker that failed to start or threw answers nothing: its readers fail rather than load for ever.
    worker.onerror = () => {
      for (const reader of pending.values()) reader.reject(new Error('The conversation could not be read from the body.'));
      pending.clear();
    };
  }
  const id = ++lastId;
  const asked: TurnsAsked = { id, bodyText };
  const started = worker;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    started.postMessage(asked);
  });
};

/** How the detail reads a large body's turns; tests, whose DOM has no workers, provide their own. */
export const TurnReaderContext = createContext<ReadTurns>(readTurnsInWorker);
