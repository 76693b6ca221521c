import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateToken } from '../../../proxy/http/clientTokens.ts';
import { DATABASE_FILE_NAME } from '../../../proxy/store/schema.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { startAirlockChild } from '../../support/airlockChild.ts';
import { chatBody, JSON_HEADERS } from '../../support/http.ts';
import { hasChatText, openStream } from '../../support/openStream.ts';

const STREAMS = 3;
const LONG_REPLY = 'a long answer '.repeat(1_000);

let simulator: GatewaySimulator;
let dataDir: string;
beforeEach(async () => {
  // Streams of 400 chunks 50 ms apart (with the long replies scripted below) are still running when the stop comes.
  simulator = await startGatewaySimulator({ streamChunkCount: 400, streamChunkIntervalMs: 50 });
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-sigterm-'));
});
afterEach(async () => {
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('SIGTERM with streams still open', () => {
  it('ends them with an error event and writes their rows before the process exits', async () => {
    const token = generateToken();
    const child = await startAirlockChild({ dataDir, upstreamBaseUrl: simulator.baseUrl, clientToken: token });
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${token}` };
    simulator.script(...Array.from({ length: STREAMS }, () => ({ kind: 'reply' as const, content: LONG_REPLY })));
    const streams = Array.from({ length: STREAMS }, () =>
      openStream(`http://127.0.0.1:${child.port}/v1/chat/completions`, headers, chatBody({ stream: true }), hasChatText(3)),
    );
    await Promise.all(streams.map((stream) => stream.started));

    process.kill(child.pid, 'SIGTERM');
    expect(await child.exited, child.stderr()).toBe(0);
    for (const { outcome } of streams) {
      const { body, endedCleanly } = await outcome;
      expect(endedCleanly).toBe(true);
      expect(body).toContain('"type":"proxy_stopping"');
    }

    // Read as the process left them: the next start would mark rows left in flight interrupted.
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE_NAME), { readOnly: true });
    try {
      const rows = db.prepare('SELECT state, error_class, usage_source, output_tokens FROM requests').all();
      expect(rows).toHaveLength(STREAMS);
      for (const row of rows) {
        expect(row).toMatchObject({ state: 'done', error_class: 'proxy_stopping', usage_source: 'estimated' });
        expect(row.output_tokens).toBeGreaterThan(0);
      }
    } finally {
      db.close();
    }
  }, 40_000);
});
