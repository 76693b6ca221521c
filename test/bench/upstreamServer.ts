/**
 * An upstream for the bench, in its own process:
 *   node test/bench/upstreamServer.ts --kind simulator [--chunk-count N] [--chunk-interval-ms N]
 *   node test/bench/upstreamServer.ts --kind sink
 * prints `listening on http://127.0.0.1:PORT` (the root: clients add /v1) and stops on SIGTERM.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { startGatewaySimulator } from '../simulator/index.ts';

const { values } = parseArgs({
  options: {
    kind: { type: 'string', default: 'simulator' },
    'chunk-count': { type: 'string', default: '20' },
    'chunk-interval-ms': { type: 'string', default: '10' },
  },
});

/**
 * Answers every request with the size and sha256 of the body it received: proof of byte-for-byte
 * forwarding. The answer is a chat completion (an empty reply) with those two fields beside it, so
 * a proxy that translates it for a Messages or Responses client can; its usage (none) spares a
 * proxy from estimating the tokens of every answer.
 */
async function startSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const hash = createHash('sha256');
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      hash.update(chunk);
    });
    request.once('end', () => {
      const text = JSON.stringify({
        id: 'chatcmpl-sink',
        object: 'chat.completion',
        model: 'sink',
        choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'stop' }],
        bytes,
        sha256: hash.digest('hex'),
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      });
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const upstream =
  values.kind === 'sink'
    ? await startSink()
    : await startGatewaySimulator({
        recordBodies: false,
        streamChunkCount: Number(values['chunk-count']),
        streamChunkIntervalMs: Number(values['chunk-interval-ms']),
      });
console.log(`listening on ${upstream.url}`);
process.once('SIGTERM', () => {
  void upstream.close().finally(() => process.exit(0));
});
