import type { ArrivingBody } from './arrivingBody.ts';
import { BodyCapture, type CaptureKeyMasker } from './capture.ts';

/**
 * The request body as the log keeps it: its first bytes (BodyCapture), and for a body sent on while
 * it arrived (arrivingBody.ts), whether all of it had come. An exchange can end before its upload
 * does (a gateway's early 400, 401 or 429, the client leaving): what had arrived is then kept marked
 * cut, with how much, so the window never shows a cut JSON body as the whole request.
 */
export class RequestBodyRecord {
  readonly #capture: BodyCapture;
  #arriving: ArrivingBody | null = null;
  /** Set when the exchange ended: bytes still arriving after it are no part of its record. */
  #closed = false;
  /** Whether the upload was still under way when the record closed: what it kept stays cut, whatever comes later. */
  #cutShort = false;

  constructor(limitBytes: number, keyMasker: CaptureKeyMasker) {
    this.#capture = new BodyCapture(limitBytes, keyMasker);
  }

  add(chunk: Buffer): void {
    if (!this.#closed) this.#capture.add(chunk);
  }

  /** The body goes on arriving: its later chunks are kept as they come. */
  follow(arriving: ArrivingBody): void {
    this.#arriving = arriving;
    arriving.onChunk((chunk) => this.add(chunk));
  }

  get truncated(): boolean {
    return this.#capture.truncated || (this.#closed ? this.#cutShort : this.#stillArriving);
  }

  toBuffer(): Buffer | null {
    return this.#capture.toBuffer();
  }

  /** The record is final: what it says of a body whose upload had not ended, for the row's notes (null when it had). */
  close(): string | null {
    if (this.#closed) return null;
    this.#cutShort = this.#stillArriving;
    this.#closed = true;
    const arriving = this.#arriving;
    if (arriving === null || !this.#cutShort) return null;
    return `the client had sent ${arriving.arrivedBytes} of its ${arriving.declaredBytes} declared bytes when the exchange ended: the logged request body is cut there`;
  }

  get #stillArriving(): boolean {
    return this.#arriving?.uploading === true;
  }
}
