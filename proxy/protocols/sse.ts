import type { EventSourceMessage } from 'eventsource-parser';
import { isRecord } from '../core/isRecord.ts';

/**
 * One parse per Server-Sent Event: the key guard, the protocol's observer and the stream
 * translator all read the event's data through `eventJson`, which parses it at the first call and
 * keeps the value on the event. A step that changes the object writes `data` again; the object
 * stays the one later steps read.
 */
export type SseEvent = EventSourceMessage & { parsedData?: Record<string, unknown> | null };

/** The event's data as a JSON object (null if it is not one: `[DONE]`, a keep-alive). */
export function eventJson(event: SseEvent): Record<string, unknown> | null {
  if (event.parsedData !== undefined) return event.parsedData;
  let json: Record<string, unknown> | null = null;
  try {
    const value: unknown = JSON.parse(event.data);
    if (isRecord(value)) json = value;
  } catch {
    // Not JSON: nothing to read in it.
  }
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
