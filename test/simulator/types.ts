import type { IncomingHttpHeaders } from 'node:http';

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Keys accepted as `Authorization: Bearer <key>`; default [SENTINEL_KEY]. */
  validKeys?: string[];
  /** Model ids this account "sees"; default DEFAULT_MODEL_IDS. */
  models?: string[];
  /** A chat request whose message text is longer than this gets 400 context_length_exceeded. */
  maxContextChars?: number;
  /** Pieces a streamed reply's content (and each tool call's arguments) is split into; default 4. */
  streamChunkCount?: number;
  /** Wait before each content delta chunk; default 0. */
  streamChunkIntervalMs?: number;
  /** Keep request bodies in `received`; default true. The benchmark turns it off. */
  recordBodies?: boolean;
}

export interface ReceivedRequest {
  method: string;
  /** Path with the query string, exactly as received. */
  path: string;
  /** Secret-bearing headers are masked (last 4 characters only). */
  headers: IncomingHttpHeaders;
  /** Whether the Authorization header carried exactly `Bearer <validKey>`. */
  authOk: boolean;
  /** Empty until the body has been read, and always empty when recordBodies is false. */
  body: Buffer;
  /** Epoch milliseconds (fractional). */
  receivedAtMs: number;
  /** When the socket carrying this request closed (client abort, or connection end). */
  closedAtMs: number | null;
}

/** Narrows a fault to requests whose path contains this substring. */
interface PathMatch {
  path?: string;
}

export interface ScriptedToolCall {
  name: string;
  /** JSON text; streamed in several pieces. */
  arguments: string;
}

/**
 * One scripted misbehaviour, consumed by the next matching request. Faults that shape a chat
 * reply (reply, cutAfter, bodyChunks) match only chat completion requests; stream-only faults
 * (slowChunks, noDone, errorEvent) match only streaming chat completion requests.
 */
export type Fault =
  | (PathMatch & { kind: 'status'; status: number; retryAfterS?: number; body?: object })
  | (PathMatch & { kind: 'html'; status?: number })
  | (PathMatch & { kind: 'delayHeaders'; ms: number })
  /** Answers once `until` settles: a test holds a request in flight for exactly as long as it needs. */
  | (PathMatch & { kind: 'holdHeaders'; until: Promise<unknown> })
  | (PathMatch & { kind: 'slowChunks'; intervalMs: number })
  | (PathMatch & { kind: 'cutAfter'; chunks: number })
  | (PathMatch & { kind: 'noDone' })
  | (PathMatch & { kind: 'errorEvent'; afterChunks: number })
  | (PathMatch & { kind: 'hang' })
  | (PathMatch & {
      kind: 'reply';
      content?: string;
      /** Used only when the request offers `tools` (a model cannot call tools it was not given). */
      toolCalls?: ScriptedToolCall[];
      /** Simulates a gateway rewriting the response model. */
      model?: string;
      /** false omits usage entirely (also from streams that asked for it). */
      usage?: false;
    })
  | (PathMatch & { kind: 'bodyChunks'; chunks: string[]; intervalMs?: number });

export type FaultKind = Fault['kind'];

export interface GatewaySimulator {
  /** Root, e.g. http://127.0.0.1:PORT */
  url: string;
  /** url + '/v1' */
  baseUrl: string;
  port: number;
  received: ReceivedRequest[];
  script(...faults: Fault[]): void;
  /** Resolves with closedAtMs of received[index]; rejects after timeoutMs. */
  waitForClose(index: number, timeoutMs: number): Promise<number>;
  openSockets(): number;
  /** Clears received requests and queued faults. */
  reset(): void;
  close(): Promise<void>;
}
