import { createContext } from 'react';
import type { BodyTree } from './bodyTree.ts';
import type { Turn } from './conversation.ts';

/**
 * Reads a large body off the main thread: parsing an agent's body of several MB, walking its history
 * or writing it pretty would stall the window for the whole read.
 */
export interface BodyReader {
  /** A request body's turns; null when it is no conversation. */
  turns(bodyText: string): Promise<Turn[] | null>;
  /** A body's tree and pretty text, for the body panel. */
  tree(bodyText: string): Promise<BodyTree>;
}

/** What each reading answers. */
export interface Readings {
  turns: Turn[] | null;
  tree: BodyTree;
}

/** What the window asks the body worker, and what it answers. */
export interface BodyAsked {
  id: number;
  reading: keyof Readings;
  bodyText: string;
}
export interface BodyRead {
  id: number;
  answer: Readings[keyof Readings];
}

let worker: Worker | null = null;
let lastId = 0;
const pending = new Map<number, { resolve: (answer: Readings[keyof Readings]) => void; reject: (error: Error) => void }>();

/** One worker for the window, started at the first large body; answers come back by id. */
function readInWorker<K extends keyof Readings>(reading: K, bodyText: string): Promise<Readings[K]> {
  if (worker === null) {
    worker = new Worker(new URL('./bodyWorker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<BodyRead>) => {
      pending.get(event.data.id)?.resolve(event.data.answer);
      pending.delete(event.data.id);
    };
    // A worker that failed to start or threw answers nothing: its readers fail rather than load for ever.
    worker.onerror = () => {
      for (const reader of pending.values()) reader.reject(new Error('The body could not be read.'));
      pending.clear();
    };
  }
  const id = ++lastId;
  const asked: BodyAsked = { id, reading, bodyText };
  const started = worker;
  return new Promise((resolve, reject) => {
    // The worker answers `asked.reading`'s kind, which is K.
    pending.set(id, { resolve: (answer) => resolve(answer as Readings[K]), reject });
    started.postMessage(asked);
  });
}

const readerInWorker: BodyReader = {
  turns: (bodyText) => readInWorker('turns', bodyText),
  tree: (bodyText) => readInWorker('tree', bodyText),
};

/** How the detail reads a large body; tests, whose DOM has no workers, provide their own. */
export const BodyReaderContext = createContext<BodyReader>(readerInWorker);
