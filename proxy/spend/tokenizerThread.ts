/**
 * The tokenizer's thread: o200k's rank tables take about 20 MB of heap and counting a large prompt
 * takes tens of milliseconds. Here neither is on the event loop that forwards requests, whose full
 * garbage collections would otherwise mark those tables (16 ms against 4) while streams wait.
 */
import { parentPort } from 'node:worker_threads';
import { estimateChatInputTokens, estimateTextTokens } from './estimate.ts';
import type { FromTokenizerThread, ToTokenizerThread } from './tokenizerMessages.ts';

if (parentPort === null) throw new Error('tokenizerThread.ts runs as a worker thread only');
const port = parentPort;

function parsedOrNull(json: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8'));
  } catch {
    return null;
  }
}

// Loads the rank tables now, so the first request that needs an estimate does not wait for them.
estimateTextTokens('warm up');

port.on('message', (message: ToTokenizerThread) => {
  const tokens = message.kind === 'chat' ? estimateChatInputTokens(parsedOrNull(message.json)) : estimateTextTokens(message.text);
  port.postMessage({ id: message.id, tokens } satisfies FromTokenizerThread);
});
