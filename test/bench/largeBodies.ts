/**
 * The bench's large and pathological request bodies: what a client may send, and what used to hold
 * Airlock's forwarding loop (a parse of 4 MiB nested two million levels deep took a second).
 */
import { CHAT_MODEL, CHAT_PATH } from './load.ts';

export interface LargeBody {
  label: string;
  path: string;
  body: Buffer;
}

const MESSAGES_PATH = '/v1/messages';
const MIB = 1024 * 1024;

/** A JSON object of `count` small distinct keys: the slowest shape for JSON.parse. */
function manyKeys(count: number): string {
  const parts: string[] = [];
  for (let index = 0; index < count; index += 1) parts.push(`"k${index}":${index}`);
  return `{${parts.join(',')}}`;
}

const nested = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

const chatWith = (extra: string): Buffer =>
  Buffer.from(`{"model":"${CHAT_MODEL}","messages":[{"role":"user","content":"Say hello to the benchmark."}],"metadata":${extra}}`);

/** Under 4 MiB each where the old code still parsed bodies on its loop, larger where it only scanned them. */
export function largeBodies(): LargeBody[] {
  const schema = `{"type":"object","properties":${manyKeys(230_000)}}`;
  return [
    {
      label: '10 MiB of text',
      path: CHAT_PATH,
      body: Buffer.from(JSON.stringify({ model: CHAT_MODEL, messages: [{ role: 'user', content: 'x'.repeat(10 * MIB) }] })),
    },
    { label: '3.9 MiB of small keys', path: CHAT_PATH, body: chatWith(manyKeys(250_000)) },
    {
      label: '3.9 MiB of small keys, Messages (translated)',
      path: MESSAGES_PATH,
      body: Buffer.from(
        `{"model":"${CHAT_MODEL}","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"lookup","input_schema":${schema}}]}`,
      ),
    },
    { label: '3.9 MiB nested 2M levels deep', path: CHAT_PATH, body: chatWith(nested(2_000_000)) },
    { label: '40 MiB nested 20M levels deep', path: CHAT_PATH, body: chatWith(nested(20 * MIB)) },
  ];
}

/** A JSON embeddings request of exactly `bytes` bytes, its text varied so a dropped or moved chunk changes the hash. */
export function largeJsonBody(bytes: number): Buffer {
  const head = Buffer.from('{"model":"text-embedding-3-small","input":"');
  const tail = Buffer.from('"}');
  const body = Buffer.alloc(bytes);
  head.copy(body, 0);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789 ';
  for (let index = head.length; index < bytes - tail.length; index += 1)
    body[index] = alphabet.charCodeAt((index * 7919) % alphabet.length);
  tail.copy(body, bytes - tail.length);
  return body;
}
