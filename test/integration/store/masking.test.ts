import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';
import { capturedBodies, endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';

const LOCAL_TOKEN = 'airlock-local-token-Qm9Xc2VjcmV0VG9rZW4';

/** The key in every form a leak could take, including base64 at each byte alignment. */
const LEAKS = [
  SENTINEL_KEY,
  encodeURIComponent(`api_key=${SENTINEL_KEY}`),
  `Bearer ${SENTINEL_KEY}`,
  ...[0, 1, 2].map((shift) => Buffer.from('x'.repeat(shift) + SENTINEL_KEY).toString('base64')),
];

function filesIn(dir: string): Array<{ name: string; bytes: Buffer }> {
  return readdirSync(dir).map((name) => ({ name, bytes: readFileSync(join(dir, name)) }));
}

let temp: TempLog;
afterEach(async () => {
  await temp.cleanup();
});

describe('secrets never reach the log files', () => {
  it('keeps the key out of the database, its WAL and shared memory, open and after close', async () => {
    temp = openTempLog({ knownSecrets: () => [SENTINEL_KEY, LOCAL_TOKEN] });
    LEAKS.forEach((leak, index) => {
      const id = `leak-${index}`;
      temp.events.emit(startEvent(id, { clientPath: `/v1/chat/completions?key=${leak}`, stream: index % 2 === 0 }));
      // A gateway that builds its request id from the key it was sent: streams get their row at the headers.
      temp.events.emit({ type: 'headers', requestId: id, status: 401, ttfbMs: 5, upstreamRequestId: `req_${leak}`, retries: 0 });
      temp.events.emit(
        endEvent(id, {
          upstreamRequestId: `req_${leak}`,
          status: 401,
          errorClass: 'auth',
          errorMessage: `upstream rejected ${leak}`,
          bodies: capturedBodies({
            requestHeaders: {
              'content-type': 'application/json',
              authorization: `Bearer ${SENTINEL_KEY}`,
              'x-api-key': SENTINEL_KEY,
              'user-agent': `agent/${leak}`,
              'x-stainless-custom': leak,
            },
            responseHeaders: { 'content-type': 'application/json', 'x-request-id': leak },
            requestBody: Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: `key ${leak} token ${LOCAL_TOKEN}` }] })),
            responseBody: Buffer.from(JSON.stringify({ error: { message: `Incorrect API key ${leak}` } })),
            streamText: `echo ${leak}`,
          }),
        }),
      );
    });
    await temp.log.flush();

    const whileOpen = filesIn(temp.dataDir);
    // The reserve holds room for the spend of rows a full disk keeps out of the database.
    expect(whileOpen.map((file) => file.name).sort()).toEqual([
      'requests.db',
      'requests.db-shm',
      'requests.db-wal',
      'unwritten-spend.reserve',
    ]);
    for (const file of whileOpen) {
      expect({ file: file.name, found: findSentinel(file.bytes) }).toEqual({ file: file.name, found: null });
      expect(file.bytes.includes(LOCAL_TOKEN)).toBe(false);
    }

    // The rows and bodies were written (so the scan above looked at real content).
    const detail = temp.log.getRequest('leak-0');
    expect(detail?.bodies?.requestBody).toContain('[redacted]');
    expect(detail?.bodies?.requestHeaders).not.toHaveProperty('authorization');
    expect(detail?.row.errorMessage).toBe('upstream rejected [redacted]');
    expect(detail?.row.upstreamRequestId).toBe('req_[redacted]');

    await temp.log.close();
    for (const file of filesIn(temp.dataDir)) {
      expect({ file: file.name, found: findSentinel(file.bytes) }).toEqual({ file: file.name, found: null });
      expect(file.bytes.includes(LOCAL_TOKEN)).toBe(false);
    }
  });
});
