import type { CommandHint } from '../../contracts/cli.ts';
import type { IncomingMessage } from 'node:http';
import { request } from '../../core/nodeHttp.ts';
import type { ConfigFile } from '../../contracts/config.ts';
import type { StoredRequest } from '../../contracts/log.ts';
import type { ReplayRequest, ReplayResponse } from '../../contracts/replay.ts';
import type { RequestStartEvent as StartEvent, RequestEndEvent as EndEvent } from '../../contracts/lifecycle.ts';
import type { RequestEvents } from '../../contracts/requestEvents.ts';
import type { ReplayGrants } from '../../http/replayGrants.ts';
import { replayDifference, replaySideOf, replaySideOfEvents } from './replayComparison.ts';
import { isReplayRefusal, planReplay, type ReplayPlan, type ReplayRefusal } from './replayPlan.ts';

export interface ReplayServiceDeps {
  /** The proxy's own address: the replay is an ordinary request to it. */
  proxyUrl: string;
  events: RequestEvents;
  grants: ReplayGrants;
  config: ConfigFile;
  /** The log's read side: the original as the detail route reads it, and the replay's row once written. */
  readRequest(id: string): StoredRequest | null | Promise<StoredRequest | null>;
  /** Writes what the log has queued, so the replay's row can be read. */
  flushLog(): Promise<void>;
  /** Masked in a replay's answer read from its events, as the log masks its row. */
  knownSecrets(): string[];
  /** How a refusal names this Airlock in the commands it suggests. */
  commandHint: CommandHint;
}

/** The replay's id, and its start and end as published (null when it had no start). */
interface SentReplay {
  replayId: string;
  events: { start: StartEvent; end: EndEvent } | null;
}

export class ReplayRefusedError extends Error {
  readonly refusal: ReplayRefusal;
  constructor(refusal: ReplayRefusal) {
    super(refusal.message);
    this.name = 'ReplayRefusedError';
    this.refusal = refusal;
  }
}

/**
 * Resolves once a request's end has been published, so the log (subscribed before this) has it.
 * Ends are noted from before the request is sent, since its id is known only with the answer's headers.
 * The start and end of replays of the original are kept too: a full disk keeps a row from the log.
 */
class EndWatch {
  readonly #ended = new Set<string>();
  readonly #replays = new Map<string, { start: StartEvent; end: EndEvent | null }>();
  #waiting: { requestId: string; resolve: () => void } | null = null;
  readonly stop: () => void;

  constructor(events: RequestEvents, replayOf: string) {
    this.stop = events.subscribe((event) => {
      if (event.type === 'start' && event.replayOf === replayOf) this.#replays.set(event.requestId, { start: event, end: null });
      if (event.type !== 'end') return;
      const replay = this.#replays.get(event.requestId);
      if (replay) replay.end = event;
      if (this.#waiting === null) this.#ended.add(event.requestId);
      else if (this.#waiting.requestId === event.requestId) this.#waiting.resolve();
    });
  }

  ended(requestId: string, signal: AbortSignal): Promise<void> {
    if (this.#ended.has(requestId)) return Promise.resolve();
    this.#ended.clear();
    return new Promise((resolve, reject) => {
      this.#waiting = { requestId, resolve };
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }

  /** The replay's start and end as published; null when it had no start (refused before its row began). */
  eventsOf(requestId: string): { start: StartEvent; end: EndEvent } | null {
    const replay = this.#replays.get(requestId);
    return replay?.end ? { start: replay.start, end: replay.end } : null;
  }
}

/**
 * One request to the proxy's own address over node:http (undici's request API would load all of
 * undici into every proxy's heap, see forward/undiciAgent.ts). No timeouts of its own: the proxy's
 * total and idle timeouts bound the exchange, and these would cut a long stream short.
 */
function sendToProxy(url: string, plan: ReplayPlan, authorization: string, signal: AbortSignal): Promise<IncomingMessage> {
  const headers: Record<string, string> = { ...plan.headers, authorization };
  if (plan.body !== null) headers['content-length'] = String(Buffer.byteLength(plan.body));
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: plan.method, headers, signal }, resolve);
    outgoing.on('error', reject);
    outgoing.end(plan.body ?? undefined);
  });
}

/**
 * Sends the plan to the proxy's own address as its client would, under a one-time grant for the
 * original's client and the chosen profile, and reads the answer to its end (a client that left
 * early would make it `client_aborted`). Returns the replay's request id once its row is ended.
 */
async function send(plan: ReplayPlan, deps: ReplayServiceDeps, replayOf: string, signal: AbortSignal): Promise<SentReplay> {
  const token = deps.config.clientTokens.find((record) => record.name === plan.clientName);
  const grant = deps.grants.issue({
    tokenName: plan.clientName,
    pinnedProfileId: plan.profileId,
    defaultModel: token?.defaultModel ?? null,
    replayOf,
  });
  const watch = new EndWatch(deps.events, replayOf);
  try {
    const response = await sendToProxy(`${deps.proxyUrl}${plan.clientPath}`, plan, `Bearer ${grant}`, signal);
    for await (const _chunk of response) {
      // Read to the end and dropped: the log keeps the answer.
    }
    const replayId = response.headers['x-airlock-request-id'];
    if (typeof replayId !== 'string') throw new Error('the proxy answered the replay without a request id');
    await watch.ended(replayId, signal);
    return { replayId, events: watch.eventsOf(replayId) };
  } finally {
    watch.stop();
    deps.grants.revoke(grant);
  }
}

/** Plans, sends and compares one replay; a replay that must not be sent throws ReplayRefusedError. */
export async function replayRequest(
  original: StoredRequest,
  replayRequestBody: ReplayRequest,
  deps: ReplayServiceDeps,
  signal: AbortSignal,
): Promise<ReplayResponse> {
  const plan = planReplay({
    original,
    request: replayRequestBody,
    profileIds: deps.config.profiles.map((profile) => profile.id),
    activeProfileId: deps.config.activeProfileId,
    commandHint: deps.commandHint,
  });
  if (isReplayRefusal(plan)) throw new ReplayRefusedError(plan);
  const { replayId, events } = await send(plan, deps, original.row.id, signal);
  await deps.flushLog();
  const replayed = await deps.readRequest(replayId);
  // The replay ran (and was charged) even when the log cannot take its row (a full disk keeps it in
  // memory): its own events still say what it answered.
  const knownSecrets = deps.knownSecrets();
  const replaySide =
    replayed !== null
      ? replaySideOf(replayed, knownSecrets)
      : events !== null
        ? replaySideOfEvents(events.start, events.end, knownSecrets)
        : null;
  if (replaySide === null) throw new Error(`the replay ${replayId} ended but its row is not in the log`);
  const originalSide = replaySideOf(original, knownSecrets);
  return {
    replayOf: original.row.id,
    replayId,
    profileId: plan.profileId,
    edited: plan.edited,
    original: originalSide,
    replay: replaySide,
    difference: replayDifference(originalSide, replaySide),
  };
}
