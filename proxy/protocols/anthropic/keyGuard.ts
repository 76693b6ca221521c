import type { SseEvent } from '../sse.ts';
import { eventJson } from '../sse.ts';
import { FieldKeyGuard, type Emit } from '../streamKeyGuard.ts';
import { isRecord } from '../../core/isRecord.ts';

/** Anthropic Messages: the delta field of each delta type; a block ends with content_block_stop. */
const ANTHROPIC_DELTA_FIELDS: Readonly<Record<string, string>> = {
  text_delta: 'text',
  input_json_delta: 'partial_json',
  thinking_delta: 'thinking',
};

export class AnthropicKeyGuard extends FieldKeyGuard<number> {
  readonly #deltaTypes = new Map<number, { type: string; field: string; eventName: string | undefined }>();

  relay(event: SseEvent, emit: Emit): void {
    const json = eventJson(event);
    const type = event.event ?? (typeof json?.type === 'string' ? json.type : '');
    const index = typeof json?.index === 'number' ? json.index : 0;
    if (json !== null && type === 'content_block_delta' && isRecord(json.delta) && typeof json.delta.type === 'string') {
      const field = ANTHROPIC_DELTA_FIELDS[json.delta.type];
      if (field !== undefined) {
        this.#deltaTypes.set(index, { type: json.delta.type, field, eventName: event.event });
        this.fields.guard(index, json.delta, field);
        this.fields.rewrite(event, json);
      }
    } else if (type === 'content_block_stop') {
      this.#flushBlock(index, emit);
    } else if (type === 'message_stop' || type === 'error') {
      for (const block of this.fields.holdingKeys()) this.#flushBlock(block, emit);
    }
    emit(event);
  }

  #flushBlock(index: number, emit: Emit): void {
    const rest = this.fields.end(index);
    const delta = this.#deltaTypes.get(index);
    if (rest === '' || delta === undefined) return;
    emit({
      event: delta.eventName,
      data: JSON.stringify({ type: 'content_block_delta', index, delta: { type: delta.type, [delta.field]: rest } }),
    });
  }
}
