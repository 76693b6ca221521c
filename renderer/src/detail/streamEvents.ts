import { createParser } from 'eventsource-parser';

/** One server-sent event of a logged stream, as the Network panel's EventStream view lists them. */
export interface StreamEventRow {
  index: number;
  /** The SSE `event:` field, or the payload's `type`, or "message". */
  type: string;
  /** The text this event added to the answer, if any. */
  delta: string;
  data: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The answer text one event carries: an OpenAI chunk's delta content, a Messages text delta, a Responses output delta. */
function deltaOf(payload: unknown): string {
  if (!isObject(payload)) return '';
  if (Array.isArray(payload.choices)) {
    const choice = payload.choices.find(isObject);
    const delta = choice && isObject(choice.delta) ? choice.delta : null;
    return typeof delta?.content === 'string' ? delta.content : '';
  }
  if (isObject(payload.delta) && typeof payload.delta.text === 'string') return payload.delta.text;
  if (payload.type === 'response.output_text.delta' && typeof payload.delta === 'string') return payload.delta;
  return '';
}

/** The events of a raw text/event-stream body, in order. */
export function parseStreamEvents(raw: string): StreamEventRow[] {
  const rows: StreamEventRow[] = [];
  const parser = createParser({
    onEvent: (event) => {
      let payload: unknown = null;
      try {
        payload = JSON.parse(event.data);
      } catch {
        // [DONE] and other plain data stay as they are.
      }
      const payloadType = isObject(payload) && typeof payload.type === 'string' ? payload.type : null;
      rows.push({ index: rows.length + 1, type: event.event ?? payloadType ?? 'message', delta: deltaOf(payload), data: event.data });
    },
  });
  // Lines may end in CR alone (the SSE spec allows it), which the parser scans to the text's end once a line.
  const text = raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
  parser.feed(text.endsWith('\n\n') ? text : `${text}\n\n`);
  return rows;
}
