/**
 * The translation thread: parses a Messages or Responses body too heavy for the forwarding loop
 * (a large one, or one with many keys and values), translates it to Chat Completions and
 * serializes it. JSON.parse of 4 MiB of small keys took 250 ms, and holding the parsed value made
 * the loop's garbage collections as long again; every other request and stream waited meanwhile.
 */
import { parentPort } from 'node:worker_threads';
import { compactingCollector, DEFAULT_RECLAIM_OPTIONS, startMemoryReclaimer } from '../../core/memoryReclaimer.ts';
import { translateJsonBytes } from './translationJob.ts';
import type { FromTranslationThread, ToTranslationThread } from './translationThreadMessages.ts';

if (parentPort === null) throw new Error('translationThread.ts runs as a worker thread only');
const port = parentPort;

port.on('message', (job: ToTranslationThread) => {
  const answer: FromTranslationThread = { ...translateJsonBytes(job), id: job.id };
  port.postMessage(answer, answer.ok ? [answer.sentJson.buffer as ArrayBuffer] : []);
});

// A parse's garbage stays in this heap while no job comes (53 MB after a 3.9 MiB body of small
// keys): collected once the thread has been idle as long as the forwarding thread waits. Jobs run
// synchronously, so between messages nothing is in hand. No trim here: only the forwarding thread
// trims, while idle (memoryReclaimer.ts); its next trim (a trim is process-wide) takes these pages too.
startMemoryReclaimer(() => false, { ...DEFAULT_RECLAIM_OPTIONS, startupCollectionMs: null }, compactingCollector(), null);
