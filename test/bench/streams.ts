import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { CHAT_MODEL, CHAT_PATH, CLIENT_HEADERS } from './load.ts';

export const STREAM_BODY = JSON.stringify({
  model: CHAT_MODEL,
  stream: true,
  messages: [{ role: 'user', content: 'Stream a reply to the benchmark.' }],
});

/** A content delta carries non-empty text (the first event's `"content":""` is the role event). */
const CONTENT_DELTA = /"delta":\{"content":"[^"]/;

export interface StreamTrace {
  /** Request start to the first body byte. */
  ttfbMs: number;
  /** When each content-delta event completed, relative to the first body byte. */
  deltaTimesMs: number[];
  /** Reads (body chunks) that completed more than one content delta: merged chunks. */
  mergedReads: number;
  /** Whether the stream ended with `[DONE]`. */
  sawDone: boolean;
}

/** Reads one stream chunk by chunk, timing when each content delta reached the client. */
export async function traceStream(pool: Pool, signal?: AbortSignal, onFirstByte?: () => void): Promise<StreamTrace> {
  const startedAt = performance.now();
  const response = await pool.request({
    method: 'POST',
    path: CHAT_PATH,
    headers: CLIENT_HEADERS,
    body: STREAM_BODY,
    ...(signal ? { signal } : {}),
  });
  if (response.statusCode !== 200) throw new Error(`stream answered ${response.statusCode}: ${await response.body.text()}`);
  let firstByteAt: number | null = null;
  let pending = '';
  let mergedReads = 0;
  let sawDone = false;
  const deltaTimesMs: number[] = [];
  for await (const chunk of response.body) {
    const readAt = performance.now();
    if (firstByteAt === null) {
      firstByteAt = readAt;
      onFirstByte?.();
    }
    pending += (chunk as Buffer).toString('utf8');
    const events = pending.split('\n\n');
    pending = events.pop() ?? '';
    const deltasInRead = events.filter((event) => CONTENT_DELTA.test(event)).length;
    if (deltasInRead > 1) mergedReads += 1;
    for (let index = 0; index < deltasInRead; index += 1) deltaTimesMs.push(readAt - firstByteAt);
    if (events.some((event) => event.includes('data: [DONE]'))) sawDone = true;
  }
  if (firstByteAt === null) throw new Error('stream ended without a byte');
  return { ttfbMs: firstByteAt - startedAt, deltaTimesMs, mergedReads, sawDone };
}
