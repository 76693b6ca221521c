/**
 * What one long agent session costs the request log (issue 22), in its own process:
 *   node test/bench/sessionLog.ts [--tree <checkout>] [--turns 100]
 * Sends a Claude Code-like conversation (Anthropic Messages: system blocks, tools, a growing
 * history of tool calls and file-sized tool results, a cache marker on the last block) turn by turn
 * through the proxy of the checkout at `--tree` (this one by default, another commit's for a
 * before/after), waits until its log thread has written and indexed everything, checkpoints the
 * WAL, and prints one JSON line: the log's file sizes and the log thread's CPU per logged row.
 */
import { readdirSync, readFileSync, rmSync, statSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { PLAIN_HINT } from '../../proxy/contracts/cli.ts';

const { values } = parseArgs({ options: { tree: { type: 'string' }, turns: { type: 'string', default: '100' } } });
const tree = resolve(values.tree ?? resolve(import.meta.dirname, '../..'));
const TURNS = Number(values.turns);
const LOG_THREAD_NAME = 'airlock-log';
const TICKS_PER_SECOND = 100;
const SETTLE_POLL_MS = 250;
const SETTLE_MAX_WAIT_MS = 300_000;

const { startServer } = (await import(join(tree, 'proxy/http/startServer.ts'))) as typeof import('../../proxy/http/startServer.ts');
const { createRequestLog } = (await import(join(tree, 'proxy/store/requestLog.ts'))) as typeof import('../../proxy/store/requestLog.ts');
const { profileSchema } = (await import(join(tree, 'proxy/contracts/profile.ts'))) as typeof import('../../proxy/contracts/profile.ts');
const { startGatewaySimulator } = (await import(join(tree, 'test/simulator/index.ts'))) as typeof import('../simulator/index.ts');
const { SENTINEL_KEY } = (await import(join(tree, 'test/support/sentinel.ts'))) as typeof import('../support/sentinel.ts');

/** A seeded generator, so both trees get the same session. */
function lcg(seed: number): () => number {
  let state = (seed * 2654435761) % 2147483648;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state;
  };
}

/**
 * A vocabulary of 4000 made-up lowercase words of 2-9 letters: about as many distinct trigrams as
 * code and prose give the full-text index (a few words repeated would make its index unrealistically
 * small), and nothing a masker takes for a key.
 */
const VOCABULARY = (() => {
  const next = lcg(42);
  return Array.from({ length: 4000 }, () => {
    const length = 2 + (next() % 8);
    return Array.from({ length }, () => String.fromCharCode(97 + (next() % 26))).join('');
  });
})();

/** Deterministic text of about `bytes` bytes. */
function prose(seed: number, bytes: number): string {
  const next = lcg(seed);
  const words: string[] = [];
  let length = 0;
  while (length < bytes) {
    const word = VOCABULARY[next() % VOCABULARY.length] as string;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
}

const SYSTEM = [
  { type: 'text', text: 'You are an agent for software engineering tasks.' },
  { type: 'text', text: prose(1, 12_000), cache_control: { type: 'ephemeral' } },
];
const TOOLS = Array.from({ length: 16 }, (_, index) => ({
  name: `tool_${index}`,
  description: prose(100 + index, 1_500),
  input_schema: { type: 'object', properties: { path: { type: 'string', description: prose(200 + index, 120) } }, required: ['path'] },
}));

type Block = Record<string, unknown>;
type Message = { role: 'user' | 'assistant'; content: Block[] };

/** Each turn's body: the history so far, a tool result of a file's size, the cache marker on the last block only. */
function* turnBodies(turns: number): Generator<string> {
  const history: Message[] = [{ role: 'user', content: [{ type: 'text', text: `Task: ${prose(7, 300)}` }] }];
  for (let turn = 1; turn <= turns; turn += 1) {
    const last = history.at(-1) as Message;
    const marked = {
      ...last,
      content: last.content.map((block, index) =>
        index === last.content.length - 1 ? { ...block, cache_control: { type: 'ephemeral' } } : block,
      ),
    };
    const messages = [...history.slice(0, -1), marked];
    yield JSON.stringify({
      model: 'claude-sonnet-4-5',
      messages,
      system: SYSTEM,
      tools: TOOLS,
      metadata: { user_id: 'user_bench_session' },
      max_tokens: 32_000,
      stream: true,
    });
    const toolUseId = `toolu_${String(turn).padStart(4, '0')}`;
    history.push({
      role: 'assistant',
      content: [
        { type: 'text', text: prose(1_000 + turn, 400) },
        { type: 'tool_use', id: toolUseId, name: `tool_${turn % 16}`, input: { path: `src/module_${turn}.ts` } },
      ],
    });
    history.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: toolUseId, content: prose(5_000 + turn, 1_500 + ((turn * 977) % 4_500)) }],
    });
  }
}

function logThreadCpuMs(): number {
  let ticks = 0;
  for (const threadId of readdirSync('/proc/self/task')) {
    try {
      if (readFileSync(`/proc/self/task/${threadId}/comm`, 'utf8').trim() !== LOG_THREAD_NAME) continue;
      const stat = readFileSync(`/proc/self/task/${threadId}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The thread ended while listed.
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

const fileBytes = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** Rows in the full-text queues of whichever schema the tree has. */
function unindexed(db: DatabaseSync): number {
  const queues = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%unindexed'")
    .all()
    .map((row) => String(row.name));
  return queues.reduce((sum, queue) => sum + Number(db.prepare(`SELECT COUNT(*) AS n FROM ${queue}`).get()?.n), 0);
}

const dataDir = mkdtempSync(join(tmpdir(), 'airlock-session-bench-'));
const simulator = await startGatewaySimulator();
const profile = profileSchema.parse({ id: 'bench', name: 'Bench gateway', baseUrl: simulator.baseUrl });
const proxy = await startServer({
  commandHint: PLAIN_HINT,
  port: 0,
  services: {
    authenticator: { authenticate: () => ({ tokenName: 'claude-code', pinnedProfileId: null }) },
    targets: { resolve: () => ({ profile, apiKey: SENTINEL_KEY }) },
  },
});
const log = createRequestLog({ dataDir, knownSecrets: () => [SENTINEL_KEY] });
log.attach(proxy.events);
const dbPath = join(dataDir, 'requests.db');
try {
  const cpuBeforeMs = logThreadCpuMs();
  let sentBytes = 0;
  const startedMs = performance.now();
  for (const body of turnBodies(TURNS)) {
    sentBytes += Buffer.byteLength(body);
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-claude-code-session-id': 'bench-session' },
      body,
    });
    if (response.status !== 200) throw new Error(`turn answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  }
  const sendMs = performance.now() - startedMs;
  await log.flush();
  // The log thread indexes bodies in the background once idle: wait until it has done so and is quiet.
  const reader = new DatabaseSync(dbPath, { readOnly: true });
  const settleStartedMs = performance.now();
  let lastCpuMs = -1;
  while (performance.now() - settleStartedMs < SETTLE_MAX_WAIT_MS) {
    await delay(SETTLE_POLL_MS * 4);
    const cpuMs = logThreadCpuMs();
    if (unindexed(reader) === 0 && cpuMs === lastCpuMs) break;
    lastCpuMs = cpuMs;
  }
  reader.close();
  const logThreadMs = logThreadCpuMs() - cpuBeforeMs;
  const rows = log.listRequests({ limit: 500 }).rows.length;
  const checkpointer = new DatabaseSync(dbPath);
  checkpointer.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const pageBytes = Number(checkpointer.prepare('PRAGMA page_size').get()?.page_size);
  const usedBytes =
    (Number(checkpointer.prepare('PRAGMA page_count').get()?.page_count) -
      Number(checkpointer.prepare('PRAGMA freelist_count').get()?.freelist_count)) *
    pageBytes;
  checkpointer.close();
  const result = {
    tree,
    turns: TURNS,
    rows,
    sentBytes,
    lastBodyBytes: Buffer.byteLength([...turnBodies(TURNS)].at(-1) ?? ''),
    dbBytes: fileBytes(dbPath),
    walBytes: fileBytes(`${dbPath}-wal`),
    usedBytes,
    logThreadCpuMs: logThreadMs,
    logThreadCpuMsPerRow: logThreadMs / rows,
    sendMs: Math.round(sendMs),
  };
  console.log(JSON.stringify(result));
} finally {
  await proxy.stop();
  await log.close();
  await simulator.close();
  rmSync(dataDir, { recursive: true, force: true });
}
