import type { SseEvent } from '../sse.ts';
import { eventJson } from '../sse.ts';
import { FieldKeyGuard, type Emit, type Json } from '../streamKeyGuard.ts';

/** Responses: every `*.delta` event's `delta`, per item and part; `*.done` ends it, a final response event ends all. */
const RESPONSES_FINAL_TYPES = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

export class ResponsesKeyGuard extends FieldKeyGuard<string> {
  readonly #lastDelta = new Map<string, { json: Json; eventName: string | undefined }>();

  relay(event: SseEvent, emit: Emit): void {
    const json = eventJson(event);
    const type = typeof json?.type === 'string' ? json.type : (event.event ?? '');
    if (json !== null && type.endsWith('.delta') && typeof json.delta === 'string') {
      const key = fieldKey(type.slice(0, -'.delta'.length), json);
      this.#lastDelta.set(key, { json, eventName: event.event });
      this.fields.guard(key, json, 'delta');
      this.fields.rewrite(event, json);
    } else if (json !== null && type.endsWith('.done')) {
      this.#flush(fieldKey(type.slice(0, -'.done'.length), json), emit);
    } else if (RESPONSES_FINAL_TYPES.has(type)) {
      for (const key of this.fields.holdingKeys()) this.#flush(key, emit);
    }
    emit(event);
  }

  #flush(key: string, emit: Emit): void {
    const rest = this.fields.end(key);
    const last = this.#lastDelta.get(key);
    this.#lastDelta.delete(key);
    if (rest === '' || last === undefined) return;
    emit({ event: last.eventName, data: JSON.stringify({ ...last.json, delta: rest }) });
  }
}

function fieldKey(kind: string, json: Json): string {
  const part = json.content_index ?? json.summary_index ?? '';
  return `${kind} ${String(json.item_id ?? '')} ${String(json.output_index ?? '')} ${String(part)}`;
}
