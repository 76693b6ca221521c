import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import type { Harness } from './proxyHarness.ts';

/** Bytes of a body a stalled upload holds back. */
export const HELD_BYTES = 100;

export interface StalledAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
}

/**
 * Sends all of a `body` but its last HELD_BYTES, declared whole, to `path` (embeddings unless given),
 * waits for `sent` (the gateway seeing its start, say), and reads the proxy's answer while the rest is held.
 */
export async function stalledUpload(
  harness: Harness,
  body: Buffer,
  sent: () => Promise<unknown>,
  path = '/v1/embeddings',
): Promise<StalledAnswer> {
  const req = request(`${harness.proxy.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(body.length), authorization: 'Bearer client-token' },
  });
  req.on('error', () => undefined);
  const answered = once(req, 'response') as Promise<[IncomingMessage]>;
  req.write(body.subarray(0, body.length - HELD_BYTES));
  await sent();
  const [res] = await answered;
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(res, 'end');
  req.destroy();
  return { status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') };
}

/** The `upload_stalled` error a stalled upload was answered with, its status checked. */
export function stalledError(answer: StalledAnswer, body: Buffer): { type: string; message: string } {
  if (answer.status !== 408) throw new Error(`expected a 408, got ${answer.status}: ${answer.text.slice(0, 200)}`);
  const error = (JSON.parse(answer.text) as { error: { type: string; message: string } }).error;
  if (error.type !== 'upload_stalled') throw new Error(`expected upload_stalled, got ${error.type}`);
  const sentWords = `the client had sent ${body.length - HELD_BYTES} of its ${body.length} declared bytes`;
  if (!error.message.includes(sentWords)) throw new Error(`the message does not say "${sentWords}": ${error.message}`);
  return error;
}
