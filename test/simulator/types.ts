import type { IncomingHttpHeaders } from 'node:http';
import type { Dialect } from './dialect.ts';
import type { DialectName } from './dialects.ts';
import type { ErrorPageServer } from './errorPages.ts';
import type { ModelCapabilities } from './modelCapabilities.ts';
import type { SimulatedTask } from './tasks.ts';

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Keys accepted as `Authorization: Bearer <key>`; default [SENTINEL_KEY]. */
  validKeys?: string[];
  /** Model ids this account "sees"; default DEFAULT_MODEL_IDS. */
  models?: string[];
  /** A chat request whose message text is longer than this gets 400 context_length_exceeded. */
  maxContextChars?: number;
  /**
   * A request whose Content-Length is over this is refused at once, as nginx's client_max_body_size
   * does in front of many gateways: a 413 HTML page and a closed connection, the body unread
   * (https://nginx.org/en/docs/http/ngx_http_core_module.html#client_max_body_size). Default: none.
   */
  maxRequestBytes?: number;
  /** Pieces a streamed reply's content (and each tool call's arguments) is split into; default 4. */
  streamChunkCount?: number;
  /** Wait before each content delta chunk; default 0. */
  streamChunkIntervalMs?: number;
  /** Keep request bodies in `received`; default true. The benchmark turns it off. */
  recordBodies?: boolean;
  /** How the gateway speaks where the seed is silent (dialects.ts); default 'seed'. */
  dialect?: DialectName | Dialect;
  /** Per model, what it cannot do (tools, images, stream) or does (reasoning); unlisted models can do everything. */
  modelCapabilities?: Record<string, Partial<ModelCapabilities>>;
  /**
   * The protocols it also speaks natively besides Chat Completions (a full gateway); default none,
   * and those paths then answer 404 as a Chat-Completions-only gateway does.
   */
  nativeProtocols?: Array<'messages' | 'responses'>;
  /** A native stream stays open after its final event until the other side closes it. */
  holdNativeStreamsOpen?: boolean;
  /** Models listed by /models that this key may not use: refused as the dialect refuses a closed model. */
  closedModels?: string[];
  /** Per key, how many requests it may make before it gets the dialect's per-key 429 (keyLimits.ts); unlisted keys are unlimited. */
  keyRequestLimits?: Record<string, number>;
  /** The Retry-After (seconds) of those 429s where the dialect sends one; default 20. */
  keyRetryAfterS?: number;
  /** Serve HTTPS with this key and certificate chain (PEM) instead of plain HTTP: a gateway behind TLS. */
  tls?: { key: string; cert: string };
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
 * reply (reply, cutAfter, bodyChunks, modelFails) match only chat completion requests; stream-only faults
 * (slowChunks, noDone, errorEvent) match only streaming chat completion requests; task faults
 * (createThenFail, taskFails) match only video task creations; echoKey matches any request.
 */
export type Fault =
  | (PathMatch & {
      kind: 'status';
      status: number;
      retryAfterS?: number;
      /** Retry-After as an HTTP date (RFC 9110 section 10.2.3 allows both forms). */
      retryAfterDate?: Date;
      /** The body as given; without one, the status's default error in the dialect's shape. */
      body?: object;
    })
  /** The dialect's answer to an empty balance (402, 403, 429 or 400 depending on the gateway). */
  | (PathMatch & { kind: 'quota' })
  /** An HTML error page from what sits in front of the gateway. */
  | (PathMatch & { kind: 'errorPage'; status: number; server?: ErrorPageServer })
  /**
   * A body as given (plain text by default), with any status, 200 included. With `encoding` it is
   * compressed so whatever the request's Accept-Encoding, as some servers do (metabase/metabase#35858
   * answered gzip to `identity`; 18F/18f.gsa.gov#1796 ignored the header); a coding zlib does not
   * have, or `mislabelled`, labels the body as it is.
   */
  | (PathMatch & {
      kind: 'text';
      status: number;
      text: string;
      contentType?: string;
      encoding?: string;
      mislabelled?: true;
      /** More headers, as sent (a redirect's Location, say). */
      headers?: Record<string, string>;
      /**
       * Sent chunked (no Content-Length) with these trailer fields after the body (RFC 9110 section
       * 6.5), as a gRPC-gateway or a server that computes a checksum while streaming may send them.
       */
      trailers?: Record<string, string>;
      /** A 103 Early Hints with these headers first, as a CDN in front of the gateway may send (RFC 8297). */
      earlyHints?: Record<string, string>;
      /**
       * Sent chunked in two writes, the body's first `byte` bytes, then the rest once `until` settles:
       * a body that reaches Airlock in two reads, however a socket would have joined them. With
       * `encoding`, the first part is a compressed block of its own (flushed, as a server that
       * compresses as it streams does: zlib's Z_SYNC_FLUSH, https://www.zlib.net/manual.html#Basic).
       */
      pausedAt?: { byte: number; until: Promise<unknown> };
      /** Sends only this many bytes of the body, then nothing more until the connection closes: a gateway stuck mid-answer. */
      stallAfterBytes?: number;
      /**
       * Sends the headers and this many bytes of the body (0: none, or part of a JSON line), then
       * resets the connection (TCP RST): a gateway process that crashed mid-answer, or a load
       * balancer or NAT dropping an idle-looking connection (AWS ALB/NLB send RST on idle timeout:
       * https://docs.aws.amazon.com/elasticloadbalancing/latest/network/network-load-balancers.html#connection-idle-timeout).
       */
      resetAfterBytes?: number;
      /**
       * Sends the headers (the whole body's Content-Length) and this many bytes of the body, then
       * closes the connection in order (FIN): a server that ended short of the length it declared,
       * its process gone or its own upstream broken.
       */
      closeAfterBytes?: number;
      /** Sent chunked (no Content-Length): a body that can end anywhere, in order. */
      chunked?: true;
    })
  /** A video task is created (and billed), then the answer fails: with this status, or a cut connection. */
  | (PathMatch & { kind: 'createThenFail'; status?: number })
  /** A video task is created normally and ends `failed` when polled. */
  | (PathMatch & { kind: 'taskFails'; message?: string })
  | (PathMatch & { kind: 'html'; status?: number })
  | (PathMatch & { kind: 'delayHeaders'; ms: number })
  /** Answers once `until` settles: a test holds a request in flight for exactly as long as it needs. */
  | (PathMatch & { kind: 'holdHeaders'; until: Promise<unknown> })
  | (PathMatch & { kind: 'slowChunks'; intervalMs: number })
  | (PathMatch & { kind: 'cutAfter'; chunks: number })
  | (PathMatch & { kind: 'noDone' })
  | (PathMatch & { kind: 'errorEvent'; afterChunks: number })
  | (PathMatch & { kind: 'hang' })
  /**
   * Takes the request, then closes the connection without a byte of answer: what a client sees when
   * the server closed an idle keep-alive connection just as the request went out on it (Node's
   * "socket hang up", undici's "other side closed"; nodejs/node#47130, hyperium/hyper#3553). The
   * client cannot tell whether the server read the request before it closed.
   */
  | (PathMatch & { kind: 'closeUnanswered' })
  /** Takes the request, then waits for `released` before answering as usual: a gateway still working on a task. */
  | (PathMatch & { kind: 'hold'; arrived: () => void; released: Promise<void> })
  | (PathMatch & {
      kind: 'reply';
      content?: string;
      /** Used only when the request offers `tools` (a model cannot call tools it was not given). */
      toolCalls?: ScriptedToolCall[];
      /** Simulates a gateway rewriting the response model. */
      model?: string;
      /** false omits usage entirely (also from streams that asked for it). */
      usage?: false;
      /** Of the prompt's tokens, these many were read from the prompt cache (worded as the dialect words it). */
      cachedTokens?: number;
      /** Thinking sent before the answer in the dialect's reasoning field. */
      reasoning?: string;
    })
  | (PathMatch & {
      kind: 'bodyChunks';
      chunks: string[];
      intervalMs?: number;
      /**
       * After the last chunk the response stays open until the other side closes it: a gateway that
       * has sent its whole stream, `[DONE]` included, and lingers before ending the body
       * (earendil-works/pi#7954: an OpenAI-compatible gateway did so, and the OpenAI SDK, which reads
       * on after `[DONE]` until the body ends, hung).
       */
      holdOpen?: true;
      /** Sends the chunks before `beforeChunk`, then waits for `until`: a stream a test holds mid-answer for as long as it needs. */
      pause?: { beforeChunk: number; until: Promise<unknown> };
    })
  /**
   * The model behind the gateway fails after the gateway accepted the request, answered as the
   * dialect answers that (Dialect.acceptedFailure): with `status`, or with 200 and the error as
   * the whole answer (modelFailure.ts). `code` and `message` replace the status's default error;
   * `quoteKey` appends the key the request came with, as OpenAI's "Incorrect API key provided: …" quotes it.
   */
  | (PathMatch & { kind: 'modelFails'; status: number; code?: string; message?: string; quoteKey?: boolean })
  | (PathMatch & {
      kind: 'echoKey';
      /**
       * A careless gateway hands back the key it was sent: as its request id (`x-request-id:
       * req_<key>`, any route) and, for chat, in the reply, as a model would repeat a pasted key.
       * A streamed reply comes in deltas of these many characters, in turn; default [2, 3].
       */
      deltaChars?: number[];
    });

export type FaultKind = Fault['kind'];

export interface HeldRequest {
  arrived: Promise<void>;
  release(): void;
}

export interface GatewaySimulator {
  /** Root, e.g. http://127.0.0.1:PORT */
  url: string;
  /** url + '/v1' */
  baseUrl: string;
  port: number;
  received: ReceivedRequest[];
  script(...faults: Fault[]): void;
  /**
   * Holds the next request matching `path` (by substring) after receiving it: `arrived` resolves
   * once it is in, and its usual answer goes out when the test calls `release()`, whether or not
   * its client is still there (the task was created all the same).
   */
  holdNext(path: string): HeldRequest;
  /** Resolves with the size of the first body bytes of the next request matching `path` (by substring), as they arrive: before the rest of its body. */
  nextBodyStart(path: string): Promise<number>;
  /** Resolves with closedAtMs of received[index]; rejects after timeoutMs. */
  waitForClose(index: number, timeoutMs: number): Promise<number>;
  openSockets(): number;
  /** Switches the dialect for the requests that follow (a suite shares one simulator across dialects). */
  useDialect(dialect: DialectName | Dialect): void;
  /** Video tasks created so far, whether or not their creation's answer reached the client. */
  tasks(): readonly SimulatedTask[];
  /** Replaces the per-key request limits (a key freed, another limited), optionally with another Retry-After. */
  setKeyRequestLimits(limits: Record<string, number>, retryAfterS?: number): void;
  /** Clears received requests, queued faults and tasks; keeps the dialect. */
  reset(): void;
  close(): Promise<void>;
}
