import { describe, expect, it } from 'vitest';
import { createChatChunkReader } from '../../../proxy/translate/chatChunkReader.ts';
import { finishChunk, textChunk, toolChunk, usageChunk } from './chatChunks.ts';

const chunks = [
  textChunk('Grüße 👋 — '),
  toolChunk({ index: 0, id: 'call_1', name: 'write', arguments: '{"text":"é' }),
  toolChunk({ index: 0, arguments: '🚀日本"}' }),
  finishChunk('tool_calls'),
  usageChunk(11, 22),
];

const sseBytes = new TextEncoder().encode(`${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`);

function read(pieces: Uint8Array[]) {
  const received: object[] = [];
  const invalid: string[] = [];
  let doneCount = 0;
  const reader = createChatChunkReader(
    (chunk) => received.push(chunk),
    () => doneCount++,
    (raw) => invalid.push(raw),
  );
  for (const piece of pieces) reader.feed(piece);
  reader.end();
  return { received, invalid, doneCount };
}

describe('createChatChunkReader', () => {
  it('has multi-byte characters in the test stream, so some cuts fall inside a character', () => {
    expect(sseBytes.length).toBeGreaterThan(new TextDecoder().decode(sseBytes).length);
  });

  it.each(Array.from({ length: sseBytes.length + 1 }, (_, cut) => cut))('a byte stream cut at byte %i reads the same chunks', (cut) => {
    expect(read([sseBytes.subarray(0, cut), sseBytes.subarray(cut)])).toEqual({ received: chunks, invalid: [], doneCount: 1 });
  });

  it('reads the same chunks fed one byte at a time', () => {
    const bytes = Array.from(sseBytes, (byte) => Uint8Array.of(byte));
    expect(read(bytes)).toEqual({ received: chunks, invalid: [], doneCount: 1 });
  });

  it('handles CRLF line ends, comments, named events and empty keep-alive data', () => {
    const text = `: keep-alive\r\n\r\ndata:\r\n\r\nevent: error\r\ndata: {"error":{"message":"boom"}}\r\n\r\ndata: ${JSON.stringify(chunks[0])}\r\n\r\n`;
    expect(read([new TextEncoder().encode(text)])).toEqual({ received: [{ error: { message: 'boom' } }, chunks[0]], invalid: [], doneCount: 0 });
  });

  it('reports data that is not a JSON object as invalid, without stopping', () => {
    const text = 'data: {"choices":\n\ndata: [1,2]\n\ndata: "text"\n\ndata: {"ok":true}\n\n';
    expect(read([new TextEncoder().encode(text)])).toEqual({ received: [{ ok: true }], invalid: ['{"choices":', '[1,2]', '"text"'], doneCount: 0 });
  });

  it('end() flushes a last event that had no closing blank line', () => {
    const text = `data: ${JSON.stringify(chunks[3])}\n\ndata: ${JSON.stringify(chunks[4])}`;
    expect(read([new TextEncoder().encode(text)]).received).toEqual([chunks[3], chunks[4]]);
  });

  it('joins multi-line data fields with a newline before parsing', () => {
    const text = 'data: {"a":\ndata: 1}\n\n';
    expect(read([new TextEncoder().encode(text)]).received).toEqual([{ a: 1 }]);
  });
});
