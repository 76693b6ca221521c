import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { FromLogThread, LogThreadData, ToLogThread } from '../../../proxy/store/write/logThreadMessages.ts';
import { tempDirPerTest } from './tempLog.ts';

const dataDir = tempDirPerTest('airlock-log-thread-ingest-');
const LOG_THREAD_URL = new URL('../../../proxy/store/write/logThread.ts', import.meta.url);

describe('the log thread, given a batch it cannot read', () => {
  it('reports the error and still answers `ingested` with the batch size, so the backlog count comes down', async () => {
    const workerData: LogThreadData = { dataDir: dataDir(), bodyCapBytes: 1024, ownCheckpoints: true };
    const worker = new Worker(LOG_THREAD_URL, { workerData });
    const received: FromLogThread[] = [];
    // The error is reported after the batch is answered for: once it is here, both are.
    const reported = new Promise<void>((resolve) =>
      worker.on('message', (message: FromLogThread) => {
        received.push(message);
        if (message.type === 'error') resolve();
      }),
    );
    try {
      // A length prefix that points far past the batch's end: decoding it throws.
      const events = Uint8Array.from([0xff, 0xff, 0xff, 0x7f, 0x7b]);
      const batch: ToLogThread = { type: 'events', events, secrets: [], withBodies: true, queuedBytes: 65_536 };
      worker.postMessage(batch);
      await reported;
      expect(received.map((message) => message.type)).toEqual(['ingested', 'error']);
      expect(received[0]).toEqual({ type: 'ingested', queuedBytes: 65_536, summaries: [] });
    } finally {
      await worker.terminate();
    }
  });
});
