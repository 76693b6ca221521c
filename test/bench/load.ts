import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { SENTINEL_KEY } from '../support/sentinel.ts';

/**
 * The load generator: one undici Pool (keep-alive) per target and concurrency, the same client
 * code for every target, so the only difference between runs is what sits behind the URL.
 */

export const CHAT_PATH = '/v1/chat/completions';
export const CHAT_MODEL = 'gpt-4o-mini';
/** Accepted by the simulator directly, passed through by the floor, replaced by Airlock. */
export const CLIENT_HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${SENTINEL_KEY}` };

export const CHAT_BODY = JSON.stringify({ model: CHAT_MODEL, messages: [{ role: 'user', content: 'Say hello to the benchmark.' }] });

export function createPool(url: string, connections: number): Pool {
  return new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
}

export interface LoadRun {
  /** Completed requests' latencies, request start to last body byte. */
  latenciesMs: number[];
  elapsedMs: number;
  requestsPerSecond: number;
  /** Non-2xx answers and transport errors. */
  failures: number;
}

export interface LoadOptions {
  pool: Pool;
  concurrency: number;
  count: number;
  /** Stops issuing new requests after this long, whatever the count. */
  maxMs: number;
}

/** Sends non-streaming chat requests, `concurrency` at a time, until `count` were sent or `maxMs` passed. */
export async function runChatLoad(options: LoadOptions): Promise<LoadRun> {
  const latenciesMs: number[] = [];
  let issued = 0;
  let failures = 0;
  const startedAt = performance.now();
  const deadline = startedAt + options.maxMs;
  const worker = async (): Promise<void> => {
    while (issued < options.count && performance.now() < deadline) {
      issued += 1;
      const requestStartedAt = performance.now();
      try {
        const response = await options.pool.request({ method: 'POST', path: CHAT_PATH, headers: CLIENT_HEADERS, body: CHAT_BODY });
        await response.body.arrayBuffer();
        if (response.statusCode !== 200) failures += 1;
        else latenciesMs.push(performance.now() - requestStartedAt);
      } catch {
        failures += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsedMs = performance.now() - startedAt;
  return { latenciesMs, elapsedMs, requestsPerSecond: (latenciesMs.length * 1000) / elapsedMs, failures };
}

/** Posts one body and returns the elapsed time and the parsed JSON answer. */
export async function postBody(pool: Pool, path: string, body: Buffer): Promise<{ elapsedMs: number; status: number; json: unknown }> {
  const startedAt = performance.now();
  const response = await pool.request({ method: 'POST', path, headers: CLIENT_HEADERS, body });
  const json: unknown = await response.body.json();
  return { elapsedMs: performance.now() - startedAt, status: response.statusCode, json };
}
