import type { EventSourceMessage } from 'eventsource-parser';
import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { KeyMasker } from '../../proxy/core/keyMasker.ts';
import { chatAdapter } from '../../proxy/protocols/chat/adapter.ts';
import { formatSseEvent } from '../../proxy/protocols/sse.ts';
import { createSseRelay } from '../../proxy/protocols/sseRelay.ts';
import { findSentinelInStream, SENTINEL_KEY } from '../support/sentinel.ts';
import { CHAT_MODEL, CHAT_PATH, CLIENT_HEADERS, createPool } from './load.ts';
import { median, pairedRatios } from './stats.ts';
import { splitBySizes } from '../simulator/chatReply.ts';

/**
 * What keeping the gateway key from the client tools costs a stream. Every stream Airlock relays
 * is masked; a stream whose model repeats the key (the simulator echoes the prompt, here the
 * pasted key, cut into deltas of 2 or 3 characters) makes the matcher hold and mask at nearly
 * every delta, the dearest case. Each kind is measured through Airlock and directly, round by
 * round, so the ratios say what the relay costs with and without the key in the text.
 */

export interface KeyMaskingResult {
  concurrency: number;
  /** Streams a second, each target's median round. */
  plain: { direct: number; airlock: number };
  keyEcho: { direct: number; airlock: number };
  /** Median of the rounds' airlock/direct ratios. */
  plainShare: number;
  keyEchoShare: number;
  /**
   * CPU nanoseconds per upstream chunk (one event), in this process: the relay's own work, and
   * what masking adds to it: text with no partial match (the common case), plain English (an end
   * like `s` that could begin the key is held now and then), the key in 2-3 character deltas.
   */
  perChunkNs: { relay: number; clean: number; plain: number; holding: number };
  /** Streams whose assembled text held the key when read: direct ones must, Airlock's must not. */
  keySeen: { direct: number; airlock: number };
  streamsRead: number;
}

export const KEY_ECHO_PROMPT = `${SENTINEL_KEY} and again ${SENTINEL_KEY.slice(0, 20)}`;
const streamBody = (content: string): string => JSON.stringify({ model: CHAT_MODEL, stream: true, messages: [{ role: 'user', content }] });
const PLAIN_BODY = streamBody('Stream a reply to the benchmark, with nothing secret in it at all.');
const KEY_ECHO_BODY = streamBody(KEY_ECHO_PROMPT);

interface StreamRun {
  streamsPerSecond: number;
  keySeen: number;
  streams: number;
}

/** Streams `body` at `concurrency` for `maxMs`, reading each whole. */
async function runStreams(pool: Pool, body: string, concurrency: number, maxMs: number): Promise<StreamRun> {
  let streams = 0;
  let keySeen = 0;
  const startedAt = performance.now();
  const worker = async (): Promise<void> => {
    while (performance.now() - startedAt < maxMs) {
      const response = await pool.request({ method: 'POST', path: CHAT_PATH, headers: CLIENT_HEADERS, body });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`a stream answered ${response.statusCode}: ${text.slice(0, 200)}`);
      streams += 1;
      if (findSentinelInStream(text) !== null) keySeen += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { streamsPerSecond: (streams * 1000) / (performance.now() - startedAt), keySeen, streams };
}

export async function measureKeyMasking(
  urls: { direct: string; airlock: string },
  options: { concurrency: number; rounds: number; maxMs: number; settle: () => Promise<unknown> },
): Promise<KeyMaskingResult> {
  const pools = { direct: createPool(urls.direct, options.concurrency), airlock: createPool(urls.airlock, options.concurrency) };
  const rounds = {
    plain: { direct: [] as number[], airlock: [] as number[] },
    keyEcho: { direct: [] as number[], airlock: [] as number[] },
  };
  const keySeen = { direct: 0, airlock: 0 };
  let streamsRead = 0;
  try {
    for (const target of ['direct', 'airlock'] as const)
      await runStreams(pools[target], PLAIN_BODY, options.concurrency, options.maxMs / 4);
    for (let round = 0; round < options.rounds; round += 1) {
      // Reverse order every other round: neither a burst of outside load nor a place in the order lands on one target only.
      const order = round % 2 === 0 ? (['direct', 'airlock'] as const) : (['airlock', 'direct'] as const);
      for (const kind of ['plain', 'keyEcho'] as const) {
        for (const target of order) {
          await options.settle();
          const run = await runStreams(pools[target], kind === 'plain' ? PLAIN_BODY : KEY_ECHO_BODY, options.concurrency, options.maxMs);
          rounds[kind][target].push(run.streamsPerSecond);
          streamsRead += run.streams;
          if (kind === 'keyEcho') keySeen[target] += run.keySeen;
        }
      }
    }
  } finally {
    await Promise.all([pools.direct.close(), pools.airlock.close()]);
  }
  return {
    concurrency: options.concurrency,
    plain: { direct: median(rounds.plain.direct), airlock: median(rounds.plain.airlock) },
    keyEcho: { direct: median(rounds.keyEcho.direct), airlock: median(rounds.keyEcho.airlock) },
    plainShare: median(pairedRatios(rounds.plain.airlock, rounds.plain.direct)),
    keyEchoShare: median(pairedRatios(rounds.keyEcho.airlock, rounds.keyEcho.direct)),
    perChunkNs: measurePerChunkNs(),
    keySeen,
    streamsRead,
  };
}

/** Chat chunks as a gateway streams them, `pieces` the content deltas, each chunk one event. */
function chatChunks(pieces: readonly string[]): Buffer[] {
  const chunk = (content: string): string =>
    formatSseEvent({
      data: JSON.stringify({
        id: 'chatcmpl-bench',
        object: 'chat.completion.chunk',
        created: 1,
        model: CHAT_MODEL,
        choices: [{ index: 0, delta: { content }, finish_reason: null }],
      }),
    });
  return [...pieces.map(chunk), 'data: [DONE]\n\n'].map((text) => Buffer.from(text));
}

const MICRO_STREAMS = 2_000;
const MICRO_ROUNDS = 5;

/** CPU time of this process in milliseconds: unlike the wall clock, it does not count time the machine gave to others. */
const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/**
 * The relay's own work on a stream's chunks, as relay.ts does it (decode, parse, observe,
 * serialize), with or without the masking; CPU nanoseconds per chunk.
 */
export function relayNsPerChunk(chunks: readonly Buffer[], masked: boolean): number {
  const masker = KeyMasker.for(SENTINEL_KEY);
  const sink = { onDelta: (): void => {}, onUsage: (): void => {}, onModel: (): void => {} };
  const startedAt = cpuMs();
  for (let stream = 0; stream < MICRO_STREAMS; stream += 1) {
    const observer = chatAdapter.stream.observer(sink, { dropUsageOnlyChunks: false, usageAsked: false });
    const guard = masked ? chatAdapter.stream.keyGuard(masker) : null;
    let rendered = '';
    const renderOne = (event: EventSourceMessage): void => {
      rendered += observer.observe(event) ? formatSseEvent(event) : '';
    };
    const relay = createSseRelay(
      (event) => {
        rendered = '';
        if (guard === null) renderOne(event);
        else guard.relay(event, renderOne);
        return rendered;
      },
      () => {},
      masked ? masker.chunkStream() : null,
    );
    for (const chunk of chunks) relay.feed(chunk);
  }
  return ((cpuMs() - startedAt) * 1e6) / (MICRO_STREAMS * chunks.length);
}

/**
 * What masking adds to the relay's work per upstream chunk, in this process: the median over
 * rounds of (relay with masking) - (relay without), the two run back to back.
 */
export function measurePerChunkNs(): KeyMaskingResult['perChunkNs'] {
  const clean = chatChunks(splitBySizes('The quick brown fox jumped over the lazy dog, then it ran off into the wood to hide.', [6, 5, 7]));
  const plain = chatChunks(
    splitBySizes('Here is a plain answer to the benchmark, streamed a few words at a time as models do.', [6, 5, 7]),
  );
  const holding = chatChunks(splitBySizes(`Here is the key you use: ${SENTINEL_KEY} (keep it safe).`, [2, 3]));
  const rounds = { relay: [] as number[], clean: [] as number[], plain: [] as number[], holding: [] as number[] };
  const added = (chunks: readonly Buffer[]): number => relayNsPerChunk(chunks, true) - relayNsPerChunk(chunks, false);
  // The first round warms the code up and is not counted.
  for (let round = 0; round <= MICRO_ROUNDS; round += 1) {
    const relay = relayNsPerChunk(clean, false);
    const cleanAdded = relayNsPerChunk(clean, true) - relay;
    const plainAdded = added(plain);
    const holdingAdded = added(holding);
    if (round === 0) continue;
    rounds.relay.push(relay);
    rounds.clean.push(cleanAdded);
    rounds.plain.push(plainAdded);
    rounds.holding.push(holdingAdded);
  }
  return { relay: median(rounds.relay), clean: median(rounds.clean), plain: median(rounds.plain), holding: median(rounds.holding) };
}
