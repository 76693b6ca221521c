import { withoutByteOrderMark } from '../core/byteOrderMark.ts';
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';

/** Reads an upstream answer: its chunks in order, then exactly one of `end` or `error`. */
export interface BodySink {
  /** Returns false when the reader is full; it then calls `UpstreamBody.resume()` once it can take more. */
  chunk(chunk: Buffer): boolean;
  end(): void;
  error(error: unknown): void;
}

type Outcome = { kind: 'ended' } | { kind: 'failed'; error: unknown };

/**
 * An upstream answer's body, handed from undici's parser to one reader with no stream object in
 * between: a Readable per answer was the largest cost a request added at concurrency 1. The
 * reader's "full" pauses the upstream socket. Chunks that come before the reader attaches (the
 * parser hands over the first ones in the same pass as the headers, a microtask before the reader
 * can attach) wait here; an answer that will have no reader is aborted.
 */
export class UpstreamBody {
  readonly #controller: Dispatcher.DispatchController;
  readonly #waiting: Buffer[] = [];
  #sink: BodySink | null = null;
  #sinkFull = false;
  #outcome: Outcome | null = null;
  #delivered = false;

  constructor(controller: Dispatcher.DispatchController) {
    this.#controller = controller;
    // undici leaves the answer's raw header Buffers on its controller, views of the socket read
    // that brought them, for as long as the exchange lives; Airlock reads only the parsed headers.
    // Kept, they were about 2 KB of every open stream (a heap snapshot diff with 200 open).
    controller.rawHeaders = null;
  }

  /** Starts delivery to `sink`; a body has one reader. */
  attach(sink: BodySink): void {
    if (this.#sink !== null) throw new Error('an upstream body has one reader');
    this.#sink = sink;
    this.resume();
  }

  /** The reader can take more: delivers what waited, then lets the socket flow again. */
  resume(): void {
    this.#sinkFull = false;
    this.#drain();
    if (!this.#sinkFull && this.#outcome === null) this.#controller.resume();
  }

  /**
   * Stops the answer: the reader hears `reason` as the error. Still coming, the exchange is aborted
   * (undici closes the socket and reports back through fail()); already ended with chunks still
   * waiting for a full reader, those are dropped. No-op once the reader heard the outcome.
   */
  abort(reason: unknown): void {
    if (this.#delivered) return;
    if (this.#outcome === null) this.#controller.abort(reason as Error);
    else this.fail(reason);
  }

  /** From the dispatch handler: the next chunk off the socket. */
  push(chunk: Buffer): void {
    if (this.#delivered) return;
    if (this.#sink === null || this.#sinkFull) {
      this.#waiting.push(chunk);
      return;
    }
    if (!this.#sink.chunk(chunk)) this.#becomeFull();
  }

  /** From the dispatch handler: the answer ended. */
  finish(): void {
    if (this.#outcome !== null) return;
    this.#outcome = { kind: 'ended' };
    this.#drain();
  }

  /** From the dispatch handler: the answer broke. The reader hears it at once; chunks not yet taken are dropped. */
  fail(error: unknown): void {
    if (this.#outcome !== null && this.#delivered) return;
    this.#outcome = { kind: 'failed', error };
    this.#waiting.length = 0;
    this.#drain();
  }

  #becomeFull(): void {
    this.#sinkFull = true;
    this.#controller.pause();
  }

  #drain(): void {
    const sink = this.#sink;
    if (sink === null) return;
    // A reader may abort from inside chunk(), which delivers the error there and then: deliver nothing after it.
    while (this.#waiting.length > 0 && !this.#sinkFull && !this.#delivered) {
      if (!sink.chunk(this.#waiting.shift() as Buffer)) this.#becomeFull();
    }
    if (this.#delivered || this.#waiting.length > 0 || this.#outcome === null) return;
    if (this.#outcome.kind === 'failed') {
      this.#delivered = true;
      sink.error(this.#outcome.error);
    } else if (!this.#sinkFull) {
      this.#delivered = true;
      sink.end();
    }
  }
}

/** An answer's bytes as text for JSON.parse: some servers write a byte order mark before their JSON. */
export function answerText(bytes: Buffer): string {
  return withoutByteOrderMark(bytes.toString('utf8'));
}

/**
 * An answer's bytes as text for JSON.parse, where a body labelled an event stream may be one JSON
 * answer with a `data: [DONE]` after it (decolua/9router#3492, #3301: a relay that took a request
 * without `stream` for a streamed one framed its whole answer so): that answer's text. Any other
 * text is returned as it is.
 */
export function jsonUnderStreamLabel(bytes: Buffer): string {
  const text = answerText(bytes);
  const framed = text.search(/\n\s*data:/);
  return framed === -1 ? text : text.slice(0, framed);
}

/**
 * Whether the bytes held of one JSON answer under the event-stream label are that answer whole (a
 * `data: [DONE]` perhaps after it): a gateway may keep the body open after it, as after a stream's end.
 * Read only when the chunk ends as a JSON object or `[DONE]` does, so a long answer is not parsed at each chunk.
 */
export function holdsWholeJsonAnswer(chunks: readonly Buffer[]): boolean {
  const last = chunks.at(-1);
  if (last === undefined || !ENDS_WHOLE.test(last.subarray(-64).toString('latin1'))) return false;
  try {
    JSON.parse(jsonUnderStreamLabel(Buffer.concat(chunks)));
    return true;
  } catch {
    return false;
  }
}
const ENDS_WHOLE = /[}\]]\s*$/;

/** A JSON object's first byte. */
export const OPEN_BRACE = 0x7b;
const BLANK_BYTES = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The chunk's first byte that is not white space (at the body's start, after a byte order mark), if it has one. */
export function firstByteOf(chunk: Buffer, bodyStart: boolean): number | undefined {
  let at = bodyStart && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
  while (at < chunk.length && BLANK_BYTES.has(chunk[at] as number)) at += 1;
  return chunk[at];
}

/**
 * Reads a whole body as the chunks it came in: the first `keepBytes` are kept and the rest read and
 * dropped, and past `maxBytes` the answer is aborted and the read fails. `onChunk` sees every chunk as it
 * comes, so a log keeps what arrived even of an answer that broke.
 */
export function readBody(
  body: UpstreamBody,
  limits: { keepBytes: number; maxBytes: number; onChunk?: (chunk: Buffer) => void },
): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let readBytes = 0;
    body.attach({
      chunk(chunk) {
        limits.onChunk?.(chunk);
        if (readBytes < limits.keepBytes) chunks.push(chunk);
        readBytes += chunk.length;
        if (readBytes > limits.maxBytes) body.abort(new Error(`the answer is larger than ${limits.maxBytes} bytes`));
        return true;
      },
      end: () => resolve(chunks),
      error: reject,
    });
  });
}

/**
 * Relays a body to the client: `write` sends a chunk on (as is or rewritten) and returns what
 * `res.write` returned, so a full client socket pauses the upstream until it drains. A client
 * that leaves meanwhile ends the answer, unless it is to be read on without the client.
 */
export function relayBody(
  body: UpstreamBody,
  res: ServerResponse,
  write: (chunk: Buffer) => boolean,
  options: { readOnWithoutClient?: boolean } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    body.attach(new BodyRelay(body, res, write, options.readOnWithoutClient === true, resolve, reject));
  });
}

/**
 * relayBody's reader. A class, its client listeners made only once the client is full: as closures,
 * each open stream held five of them, their context and a reader object for its whole life.
 */
class BodyRelay implements BodySink {
  readonly #body: UpstreamBody;
  readonly #res: ServerResponse;
  readonly #write: (chunk: Buffer) => boolean;
  readonly #readOnWithoutClient: boolean;
  readonly #resolve: () => void;
  readonly #reject: (error: unknown) => void;
  #listeners: { onDrain(): void; onClose(): void } | null = null;

  constructor(
    body: UpstreamBody,
    res: ServerResponse,
    write: (chunk: Buffer) => boolean,
    readOnWithoutClient: boolean,
    resolve: () => void,
    reject: (error: unknown) => void,
  ) {
    this.#body = body;
    this.#res = res;
    this.#write = write;
    this.#readOnWithoutClient = readOnWithoutClient;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  chunk(chunk: Buffer): boolean {
    if (this.#write(chunk)) return true;
    this.#listeners ??= {
      onDrain: () => {
        this.#stopWaiting();
        this.#body.resume();
      },
      // A client gone while its socket was full never drains; the answer may have ended upstream already.
      onClose: () => {
        if (!this.#readOnWithoutClient) {
          this.#body.abort('client_aborted');
          return;
        }
        this.#stopWaiting();
        this.#body.resume();
      },
    };
    this.#res.once('drain', this.#listeners.onDrain);
    this.#res.once('close', this.#listeners.onClose);
    return false;
  }

  end(): void {
    this.#resolve();
  }

  error(error: unknown): void {
    this.#stopWaiting();
    this.#reject(error);
  }

  #stopWaiting(): void {
    if (this.#listeners === null) return;
    this.#res.off('drain', this.#listeners.onDrain);
    this.#res.off('close', this.#listeners.onClose);
  }
}
