import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { KeyMasker, KeyTextStream } from '../core/keyMasker.ts';
import { eventJson, formatSseEvent } from '../protocols/sseRelay.ts';

/**
 * A key streamed back a few characters a delta is whole in no single event: only the text a
 * client assembles holds it. So each field a client concatenates across events runs through its
 * own rolling matcher, which passes the text on at once except an end that could still begin the
 * key, held until the field's next delta (or its end) decides. Which fields those are, and where
 * each ends, is the protocol's: the upstream's, before any translation.
 */
export type StreamDialect = 'chat' | 'anthropic' | 'responses';

type Json = Record<string, unknown>;
type Emit = (event: EventSourceMessage) => void;

export interface StreamKeyGuard {
  /** Emits the event as the client may see it, after any events that hand on text held back before it. */
  relay(event: EventSourceMessage, emit: Emit): void;
  /** Whether any text was masked (the captured raw events then need the same masking). */
  readonly masked: boolean;
  /** Whether a field still holds text back: a stream cut now ends with part of the key in the raw events only. */
  readonly holding: boolean;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A string value the guard changed in the event being relayed. */
interface Edit {
  property: string;
  before: string;
  after: string;
}

/**
 * The data with each edited value replaced where it stands, or null when a value is not found
 * exactly once (another encoding, spaces after the colon): the caller serializes the whole event.
 * A held end of a word (the `s` that could begin `sk-`) changes one event in five of plain text;
 * serializing each of those again cost several times the rest of the masking.
 */
function patchedData(data: string, edits: readonly Edit[]): string | null {
  let result = data;
  for (const { property, before, after } of edits) {
    const needle = `"${property}":${JSON.stringify(before)}`;
    const at = result.indexOf(needle);
    if (at === -1 || result.includes(needle, at + needle.length)) return null;
    result = `${result.slice(0, at)}"${property}":${JSON.stringify(after)}${result.slice(at + needle.length)}`;
  }
  return result;
}

/** The text fields of one kind of event, each a stream of its own. */
class FieldStreams<Key> {
  readonly #masker: KeyMasker;
  readonly #streams = new Map<Key, KeyTextStream>();
  #masked = false;
  #edits: Edit[] = [];
  #reshaped = false;

  constructor(masker: KeyMasker) {
    this.#masker = masker;
  }

  get masked(): boolean {
    return this.#masked;
  }

  get holding(): boolean {
    for (const stream of this.#streams.values()) if (stream.holding) return true;
    return false;
  }

  /** Runs `holder[property]` through its field's stream; true if what passes differs. */
  guard(key: Key, holder: Json, property: string): boolean {
    const value = holder[property];
    if (typeof value !== 'string' || value === '') return false;
    let stream = this.#streams.get(key);
    if (stream === undefined) {
      stream = this.#masker.textStream();
      this.#streams.set(key, stream);
    }
    const passed = stream.push(value);
    if (passed === value) return false;
    this.#masked ||= stream.masked;
    holder[property] = passed;
    this.#edits.push({ property, before: value, after: passed });
    return true;
  }

  /** Held text was added to the event where it had no value of its own: only serializing it whole writes that. */
  noteReshaped(): void {
    this.#reshaped = true;
  }

  /** Writes the event's data again if its fields changed (the parsed JSON stays the one later steps read). */
  rewrite(event: EventSourceMessage, json: Json): void {
    const edits = this.#edits;
    const reshaped = this.#reshaped;
    if (edits.length === 0 && !reshaped) return;
    this.#edits = [];
    this.#reshaped = false;
    event.data = (reshaped ? null : patchedData(event.data, edits)) ?? JSON.stringify(json);
  }

  /** The field ended: what it still held ('' if nothing). */
  end(key: Key): string {
    const stream = this.#streams.get(key);
    if (stream === undefined) return '';
    this.#streams.delete(key);
    const rest = stream.end();
    this.#masked ||= stream.masked;
    return rest;
  }

  /** The fields still holding text (most streams end with none). */
  holdingKeys(): Key[] {
    const keys: Key[] = [];
    for (const [key, stream] of this.#streams) if (stream.holding) keys.push(key);
    return keys;
  }
}

/** Legacy completions stream `choices[].text`. */
const LEGACY_TEXT_FIELD = 'text';
/** What the three protocols' guards share: the fields they watch, and whether they masked or still hold text. */
abstract class FieldKeyGuard<Key> implements StreamKeyGuard {
  protected readonly fields: FieldStreams<Key>;

  constructor(masker: KeyMasker) {
    this.fields = new FieldStreams(masker);
  }

  get masked(): boolean {
    return this.fields.masked;
  }

  get holding(): boolean {
    return this.fields.holding;
  }

  abstract relay(event: EventSourceMessage, emit: Emit): void;
}

const TOOL_FIELD_PREFIX = 'tool ';

/**
 * Chat Completions (and legacy completions): per choice, clients concatenate `content`,
 * `reasoning_content` (DeepSeek and others), `reasoning`, `refusal` and each tool call's
 * arguments; a choice ends with its finish_reason, the stream with [DONE].
 */
class ChatKeyGuard extends FieldKeyGuard<string> {
  #lastChunk: Json = {};
  /** Field keys by choice and field name, made once: a key made per delta cost an allocation and a hash each time. */
  readonly #keys: Array<Record<string, string>> = [];

  #key(index: number, field: string): string {
    let keys = this.#keys[index];
    if (keys === undefined) {
      keys = {};
      this.#keys[index] = keys;
    }
    let key = keys[field];
    if (key === undefined) {
      key = `${index} ${field}`;
      keys[field] = key;
    }
    return key;
  }

  relay(event: EventSourceMessage, emit: Emit): void {
    if (event.data === '[DONE]') {
      this.#flushAll(emit);
      emit(event);
      return;
    }
    const chunk = eventJson(event);
    const choices = chunk?.choices;
    if (chunk === null || !Array.isArray(choices)) {
      emit(event);
      return;
    }
    this.#lastChunk = chunk;
    for (let position = 0; position < choices.length; position += 1) {
      const choice: unknown = choices[position];
      if (isObject(choice)) this.#guardChoice(choice, typeof choice.index === 'number' ? choice.index : position);
    }
    this.fields.rewrite(event, chunk);
    emit(event);
  }

  #guardChoice(choice: Json, index: number): void {
    const delta = choice.delta;
    if (isObject(delta)) {
      // Named reads, not a loop over the names: each site then sees one property, the cheap case on every delta.
      if (typeof delta.content === 'string') this.fields.guard(this.#key(index, 'content'), delta, 'content');
      if (typeof delta.reasoning_content === 'string') this.fields.guard(this.#key(index, 'reasoning_content'), delta, 'reasoning_content');
      if (typeof delta.reasoning === 'string') this.fields.guard(this.#key(index, 'reasoning'), delta, 'reasoning');
      if (typeof delta.refusal === 'string') this.fields.guard(this.#key(index, 'refusal'), delta, 'refusal');
      if (Array.isArray(delta.tool_calls)) {
        delta.tool_calls.forEach((call: unknown, position) => {
          if (!isObject(call) || !isObject(call.function)) return;
          const callIndex = typeof call.index === 'number' ? call.index : position;
          this.fields.guard(this.#key(index, `${TOOL_FIELD_PREFIX}${callIndex}`), call.function, 'arguments');
        });
      }
    }
    if (typeof choice.text === 'string') this.fields.guard(this.#key(index, LEGACY_TEXT_FIELD), choice, LEGACY_TEXT_FIELD);
    if (choice.finish_reason !== null && choice.finish_reason !== undefined && this.#flushChoice(choice, index)) this.fields.noteReshaped();
  }

  /** The choice ended: its held text goes in this chunk, appended to the fields it belongs to. */
  #flushChoice(choice: Json, index: number): boolean {
    let changed = false;
    const prefix = `${index} `;
    for (const key of this.fields.holdingKeys()) {
      if (!key.startsWith(prefix)) continue;
      const rest = this.fields.end(key);
      if (rest === '') continue;
      changed = true;
      const field = key.slice(prefix.length);
      if (field === LEGACY_TEXT_FIELD) {
        choice.text = `${typeof choice.text === 'string' ? choice.text : ''}${rest}`;
        continue;
      }
      if (!isObject(choice.delta)) choice.delta = {};
      const delta = choice.delta as Json;
      if (!field.startsWith(TOOL_FIELD_PREFIX)) {
        delta[field] = `${typeof delta[field] === 'string' ? delta[field] : ''}${rest}`;
        continue;
      }
      const callIndex = Number(field.slice(TOOL_FIELD_PREFIX.length));
      if (!Array.isArray(delta.tool_calls)) delta.tool_calls = [];
      const calls = delta.tool_calls as unknown[];
      const call = calls.find(
        (candidate): candidate is Json => isObject(candidate) && candidate.index === callIndex && isObject(candidate.function),
      );
      if (call) (call.function as Json).arguments = `${String((call.function as Json).arguments ?? '')}${rest}`;
      else calls.push({ index: callIndex, function: { arguments: rest } });
    }
    return changed;
  }

  /** [DONE] came while choices still held text (no finish_reason): a chunk of its own hands it on first. */
  #flushAll(emit: Emit): void {
    const indexes = new Set(this.fields.holdingKeys().map((key) => Number(key.slice(0, key.indexOf(' ')))));
    for (const index of indexes) {
      const choice: Json = { index, delta: {}, finish_reason: null };
      if (!this.#flushChoice(choice, index)) continue;
      const { id, object, created, model } = this.#lastChunk;
      emit({ data: JSON.stringify({ id, object, created, model, choices: [choice] }) });
    }
  }
}

/** Anthropic Messages: the delta field of each delta type; a block ends with content_block_stop. */
const ANTHROPIC_DELTA_FIELDS: Readonly<Record<string, string>> = {
  text_delta: 'text',
  input_json_delta: 'partial_json',
  thinking_delta: 'thinking',
};

class AnthropicKeyGuard extends FieldKeyGuard<number> {
  readonly #deltaTypes = new Map<number, { type: string; field: string; eventName: string | undefined }>();

  relay(event: EventSourceMessage, emit: Emit): void {
    const json = eventJson(event);
    const type = event.event ?? (typeof json?.type === 'string' ? json.type : '');
    const index = typeof json?.index === 'number' ? json.index : 0;
    if (json !== null && type === 'content_block_delta' && isObject(json.delta) && typeof json.delta.type === 'string') {
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

/** Responses: every `*.delta` event's `delta`, per item and part; `*.done` ends it, a final response event ends all. */
const RESPONSES_FINAL_TYPES = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

class ResponsesKeyGuard extends FieldKeyGuard<string> {
  readonly #lastDelta = new Map<string, { json: Json; eventName: string | undefined }>();

  relay(event: EventSourceMessage, emit: Emit): void {
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

export function createStreamKeyGuard(masker: KeyMasker, dialect: StreamDialect): StreamKeyGuard {
  if (dialect === 'anthropic') return new AnthropicKeyGuard(masker);
  return dialect === 'responses' ? new ResponsesKeyGuard(masker) : new ChatKeyGuard(masker);
}

/**
 * Captured raw upstream events as the client saw them: the key masked whole and across deltas.
 * For the log, once a stream is known to have held the key (rare); the relay itself never waits for this.
 */
export function maskedEventsText(raw: Buffer, masker: KeyMasker, dialect: StreamDialect): string {
  const guard = createStreamKeyGuard(masker, dialect);
  let text = '';
  const emit = (event: EventSourceMessage): void => {
    text += formatSseEvent(event);
  };
  const parser = createParser({
    onEvent: (event) => guard.relay(event, emit),
    onComment: (comment) => {
      text += `:${comment}\n\n`;
    },
  });
  parser.feed(masker.maskText(raw.toString('utf8')));
  return text;
}
