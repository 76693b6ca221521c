import type { ErrorClass } from '../../../proxy/contracts/errors.ts';
import type { RequestLifecycleEvent } from '../../../proxy/contracts/lifecycle.ts';
import { DEFAULT_BODY_CAP_BYTES } from '../../../proxy/store/write/bodyRecord.ts';
import { EventIngest } from '../../../proxy/store/write/eventIngest.ts';
import { openLogDatabase } from '../../../proxy/store/schema.ts';

export const SEED_MODELS = ['gpt-4o-mini', 'gpt-4o', 'deepseek-chat'] as const;
export const SEED_CLIENTS = ['cline', 'aider'] as const;
/** Every RATE_LIMITED_EVERY-th row is a 429, so a status filter has a known count. */
export const RATE_LIMITED_EVERY = 10;
/** Every NEEDLE_EVERY-th request body carries NEEDLE_WORD (a prime, so some of them are also 429s). */
export const NEEDLE_EVERY = 997;
export const NEEDLE_WORD = 'quokka-needle';

export interface SeededRow {
  index: number;
  id: string;
  model: string;
  clientName: string;
  failed: boolean;
  hasNeedle: boolean;
}

/** What row `index` of a seed looks like; row 0 is the oldest. */
export function seededRow(index: number): SeededRow {
  return {
    index,
    id: `seed-${String(index).padStart(6, '0')}`,
    model: SEED_MODELS[index % SEED_MODELS.length] as string,
    clientName: SEED_CLIENTS[index % SEED_CLIENTS.length] as string,
    failed: index % RATE_LIMITED_EVERY === RATE_LIMITED_EVERY - 1,
    hasNeedle: index % NEEDLE_EVERY === NEEDLE_EVERY - 1,
  };
}

function eventsFor(row: SeededRow, startedAtMs: number, profileId: string): RequestLifecycleEvent[] {
  const errorClass: ErrorClass | null = row.failed ? 'rate_limited' : null;
  const status = row.failed ? 429 : 200;
  const requestText = JSON.stringify({
    model: row.model,
    messages: [{ role: 'user', content: `seed row ${row.index}${row.hasNeedle ? ` ${NEEDLE_WORD}` : ''}` }],
  });
  const responseText = row.failed
    ? JSON.stringify({ error: { message: 'Too many requests', type: 'rate_limited', code: 'rate_limited' } })
    : JSON.stringify({
        choices: [{ message: { role: 'assistant', content: `answer ${row.index}` } }],
        model: row.model,
        usage: { prompt_tokens: 12, completion_tokens: 3 },
      });
  return [
    {
      type: 'start',
      requestId: row.id,
      startedAtMs,
      method: 'POST',
      clientPath: '/v1/chat/completions',
      upstreamPath: 'chat/completions',
      profileId,
      clientName: row.clientName,
      protocol: 'openai',
      protocolMode: 'native',
      requestedModel: row.model,
      upstreamModel: row.model,
      stream: false,
      notes: [],
    },
    {
      type: 'end',
      requestId: row.id,
      status,
      durationMs: 40 + (row.index % 200),
      ttfbMs: 20 + (row.index % 100),
      retries: 0,
      errorClass,
      errorMessage: row.failed ? 'Too many requests' : null,
      errorCode: null,
      responseModel: row.model,
      upstreamRequestId: `upstream-${row.index}`,
      usage: row.failed ? null : { inputTokens: 12, outputTokens: 3 },
      usageSource: row.failed ? null : 'reported',
      costCredits: null,
      bodies: {
        requestHeaders: { 'content-type': 'application/json' },
        responseHeaders: { 'content-type': 'application/json' },
        requestBody: Buffer.from(requestText),
        requestBodyTruncated: false,
        responseBody: Buffer.from(responseText),
        responseBodyTruncated: false,
        streamText: null,
      },
    },
  ];
}

/**
 * Writes `count` finished requests into the log database of `dataDir` directly, with the log
 * thread's own ingest code on a connection of this process: the running Airlock's log thread
 * yields the CPU to any other work, so seeding through it took as long as the machine was busy.
 * Its live channel does not see these rows. Row i started at `newestStartedAtMs - (count - 1 - i) * spacingMs`.
 */
export function seedRequestLog(
  dataDir: string,
  options: { count: number; newestStartedAtMs: number; spacingMs: number; profileId: string },
): SeededRow[] {
  const rows: SeededRow[] = [];
  const events: RequestLifecycleEvent[] = [];
  for (let index = 0; index < options.count; index += 1) {
    const row = seededRow(index);
    rows.push(row);
    events.push(...eventsFor(row, options.newestStartedAtMs - (options.count - 1 - index) * options.spacingMs, options.profileId));
  }
  const db = openLogDatabase({ dataDir });
  const errors: unknown[] = [];
  const ingest = new EventIngest(db, {
    bodyCapBytes: DEFAULT_BODY_CAP_BYTES,
    onError: (error) => errors.push(error),
    onBodiesState: () => undefined,
  });
  try {
    ingest.ingest(events, [], true);
  } finally {
    ingest.close();
    db.close();
  }
  if (errors.length > 0) throw new Error(`seeding the request log failed: ${String(errors[0])}`);
  return rows;
}
