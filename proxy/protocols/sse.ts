import type { EventSourceMessage } from 'eventsource-parser';
import { parsedRecord } from '../core/isRecord.ts';

/**
 * One parse per Server-Sent Event: the key guard, the protocol's observer and the stream
 * translator all read the event's data through `eventJson`, which parses it at the first call and
 * keeps the value on the event. A step that changes the object writes `data` again; the object
 * stays the one later steps read.
 */
export type SseEvent = EventSourceMessage & { parsedData?: Record<string, unknown> | null };

const LF = 0x0a;
const CR = 0x0d;
const CR_LINE_END = /\r\n?/g;

/**
 * Upstream bytes as text whose lines all end in LF. The SSE spec ends a line with CRLF, LF or a lone
 * CR; eventsource-parser holds a CR that ends a chunk until it sees whether an LF follows, so a
 * stream framed with lone CRs had each event wait for the next chunk (its last one never came), and
 * searched such a chunk from each line to its end. Here a CR that ends a chunk is the line's end at
 * once, and an LF that starts the next chunk completes that CRLF: it is dropped, not an empty line.
 */
export class SseTextDecoder {
  /** A byte order mark at the start is dropped, as the spec says. */
  readonly #utf8 = new TextDecoder('utf-8');
  #afterCr = false;

  decode(chunk: Buffer): string {
    const text = this.#utf8.decode(chunk, { stream: true });
    if (text === '') return text;
    const completesCrLf = this.#afterCr && text.charCodeAt(0) === LF;
    this.#afterCr = text.charCodeAt(text.length - 1) === CR;
    const rest = completesCrLf ? text.slice(1) : text;
    return rest.includes('\r') ? rest.replace(CR_LINE_END, '\n') : rest;
  }
}

/** The event's data as a JSON object (null if it is not one: `[DONE]`, a keep-alive). */
export function eventJson(event: SseEvent): Record<string, unknown> | null {
  if (event.parsedData !== undefined) return event.parsedData;
  const json = parsedRecord(event.data);
  event.parsedData = json;
  return json;
}

/**
 * The event's type: the `type` its data carries (Messages and Responses put it in every event), else
 * its `event:` name, else ''. The data wins because some relays name every event `message`.
 */
export function eventType(event: SseEvent, json: Record<string, unknown> | null): string {
  return typeof json?.type === 'string' ? json.type : (event.event ?? '');
}

/** One complete frame: a named event and its JSON data, ending in a blank line. */
export function sseFrame(eventName: string, data: unknown): string {
  return `event: ${eventName}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Serialises a comment (a keep-alive) back to the wire. The parser drops the one space after the
 * colon, so which form came is lost; the form with the space is what servers send (`: ping`,
 * OpenRouter's `: OPENROUTER PROCESSING`, the WHATWG spec's own examples), so that one is written.
 */
export function formatSseComment(comment: string): string {
  return comment === '' ? ':\n\n' : `: ${comment}\n\n`;
}

/** Serialises one event back to the wire; `data` may hold several lines. */
export function formatSseEvent(event: EventSourceMessage): string {
  let frame = '';
  if (event.event !== undefined) frame += `event: ${event.event}\n`;
  if (event.id !== undefined) frame += `id: ${event.id}\n`;
  for (const line of event.data.split('\n')) frame += `data: ${line}\n`;
  return `${frame}\n`;
}
