import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { createBrotliCompress, createDeflate, createGzip, createZstdCompress, type BrotliCompress, type Gzip } from 'node:zlib';

export function sendJson(response: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  response.end(html);
}

/** Starts an SSE response and sends the headers at once, before any event exists. */
export function startEventStream(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.flushHeaders();
}

/** Waits, or returns false at once when the response closed (client gone or simulator stopping). */
export async function waitUnlessClosed(ms: number, closed: AbortSignal): Promise<boolean> {
  if (closed.aborted) return false;
  if (ms <= 0) return true;
  try {
    await delay(ms, undefined, { signal: closed });
    return true;
  } catch {
    return false;
  }
}

/** True once `until` settles, false as soon as the client closed the connection instead. */
export function settledUnlessClosed(until: Promise<unknown>, closed: AbortSignal): Promise<boolean> {
  if (closed.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = (): void => resolve(false);
    closed.addEventListener('abort', onClose, { once: true });
    const settled = (): void => {
      closed.removeEventListener('abort', onClose);
      resolve(true);
    };
    until.then(settled, settled);
  });
}

/** Breaks the connection mid-response once the bytes already written are flushed. */
export function cutConnection(response: ServerResponse): void {
  const socket = response.socket;
  socket?.end(() => socket.destroy());
}

/** Sends the headers and these bytes, then resets the connection (RST, not FIN) once they are flushed. */
export function resetAfter(response: ServerResponse, bytes: Buffer): void {
  const socket = response.socket;
  response.flushHeaders();
  response.write(bytes, () => socket?.resetAndDestroy());
}

/** Sends the headers and these bytes, then closes the connection in order (FIN) once they are flushed. */
export function closeAfter(response: ServerResponse, bytes: Buffer): void {
  const socket = response.socket;
  response.flushHeaders();
  response.write(bytes, () => socket?.end());
}

const COMPRESSORS: Readonly<Record<string, () => Gzip | BrotliCompress>> = {
  gzip: createGzip,
  deflate: createDeflate,
  br: createBrotliCompress,
  zstd: createZstdCompress,
};

/**
 * Writes `body` in two parts, the second once `until` settles, then ends; nothing more once the
 * client closed the connection instead. With a coding zlib has, each part is compressed as it goes
 * and the first is flushed: a block of its own.
 */
export async function writeInTwoParts(
  response: ServerResponse,
  body: Buffer,
  at: number,
  until: Promise<unknown>,
  closed: AbortSignal,
  encoding?: string,
): Promise<void> {
  const compressor = encoding === undefined ? undefined : COMPRESSORS[encoding]?.();
  if (compressor === undefined) {
    response.write(body.subarray(0, at));
    if (await settledUnlessClosed(until, closed)) response.end(body.subarray(at));
    return;
  }
  compressor.on('data', (chunk: Buffer) => response.write(chunk));
  compressor.write(body.subarray(0, at));
  await new Promise<void>((resolve) => compressor.flush(() => resolve()));
  if (!(await settledUnlessClosed(until, closed))) {
    compressor.destroy();
    return;
  }
  compressor.end(body.subarray(at));
  await once(compressor, 'end');
  response.end();
}
