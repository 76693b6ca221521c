import { createParser } from 'eventsource-parser';
import type { KeyMasker } from '../core/keyMasker.ts';
import type { KeyTextStream } from '../core/keyTextStream.ts';
import { formatSseComment, formatSseEvent, SseTextDecoder, type SseEvent } from './sse.ts';

/**
 * A key streamed back a few characters a delta is whole in no single event: only the text a
 * client assembles holds it. So each field a client concatenates across events runs through its
 * own rolling matcher, which passes the text on at once except an end that could still begin the
 * key, held until the field's next delta (or its end) decides. Which fields those are, and where
 * each ends, is the protocol's: the upstream's, before any translation.
 */
export type Json = Record<string, unknown>;
export type Emit = (event: SseEvent) => void;

export interface StreamKeyGuard {
  /** Emits the event as the client may see it, after any events that hand on text held back before it. */
  relay(event: SseEvent, emit: Emit): void;
  /** Whether any text was masked (the captured raw events then need the same masking). */
  readonly masked: boolean;
  /** Whether a field still holds text back: a stream cut now ends with part of the key in the raw events only. */
  readonly holding: boolean;
}

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
export class FieldStreams<Key> {
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
    const stream = this.#streamOf(key);
    return this.#replace(holder, property, value, stream.push(value), stream);
  }

  /**
   * `guard` for a field a client may take whole from the first delta that has it, or replace with
   * each one's (a tool call's name and id: the Vercel AI SDK, openai-node): what the stream would
   * hold is handed on at once, so each delta keeps the piece it came with, and a client that joins
   * the pieces (openai-python) still never has the key whole (KeyTextStream.handOn).
   */
  guardHandingOn(key: Key, holder: Json, property: string): boolean {
    const value = holder[property];
    if (typeof value !== 'string' || value === '') return false;
    const stream = this.#streamOf(key);
    return this.#replace(holder, property, value, stream.push(value) + stream.handOn(), stream);
  }

  #streamOf(key: Key): KeyTextStream {
    let stream = this.#streams.get(key);
    if (stream === undefined) {
      stream = this.#masker.textStream();
      this.#streams.set(key, stream);
    }
    return stream;
  }

  /** Puts what passed in the value's place, if it differs; true if it did. */
  #replace(holder: Json, property: string, value: string, passed: string, stream: KeyTextStream): boolean {
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
  rewrite(event: SseEvent, json: Json): void {
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

  /**
   * The field pauses, its choice gone on to another (the answer's text after the thinking): what it
   * holds, handed on now ('' if nothing), so it reaches the client before what comes next. A key the
   * field then goes on to spell is still masked (KeyTextStream.handOn).
   */
  handOn(key: Key): string {
    const stream = this.#streams.get(key);
    if (stream === undefined) return '';
    const rest = stream.handOn();
    this.#masked ||= stream.masked;
    return rest;
  }

  /** Whether no field but `key` holds text: its next piece takes what it holds on. */
  holdsNoneBut(key: Key): boolean {
    for (const [other, stream] of this.#streams) if (other !== key && stream.holding) return false;
    return true;
  }

  /** The fields still holding text (most streams end with none). */
  holdingKeys(): Key[] {
    const keys: Key[] = [];
    for (const [key, stream] of this.#streams) if (stream.holding) keys.push(key);
    return keys;
  }
}

/** What the protocols' guards share: the fields they watch, and whether they masked or still hold text. */
export abstract class FieldKeyGuard<Key> implements StreamKeyGuard {
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

  abstract relay(event: SseEvent, emit: Emit): void;
}

/**
 * The protocol's guard behind one that masks the key wherever an event spells it out with escapes
 * (`\u002d`, `\/`, `%2D`, `&#45;`): the text guard before the parser searches each chunk, but an
 * escaped key cut across two chunks is whole only in the event, and the client's parse undoes JSON
 * escapes in any field, not only those the protocol's guard follows.
 */
export function guardingEscapedKey(guard: StreamKeyGuard, masker: KeyMasker): StreamKeyGuard {
  return new EscapedKeyGuard(guard, masker);
}

/** A class, not an object literal with getters: each open stream held its closures and a dictionary-mode object. */
class EscapedKeyGuard implements StreamKeyGuard {
  readonly #guard: StreamKeyGuard;
  readonly #masker: KeyMasker;
  #masked = false;

  constructor(guard: StreamKeyGuard, masker: KeyMasker) {
    this.#guard = guard;
    this.#masker = masker;
  }

  relay(event: SseEvent, emit: Emit): void {
    if (this.#masker.holdsEscapedForm(event.data)) {
      event.data = this.#masker.maskText(event.data);
      // Read again from the masked data by whoever reads it first.
      delete event.parsedData;
      this.#masked = true;
    }
    this.#guard.relay(event, emit);
  }

  get masked(): boolean {
    return this.#masked || this.#guard.masked;
  }

  get holding(): boolean {
    return this.#guard.holding;
  }
}

/**
 * Captured raw upstream events as the client saw them: the key masked whole and across deltas.
 * For the log, once a stream is known to have held the key (rare); the relay itself never waits for this.
 */
export function maskedEventsText(raw: Buffer, masker: KeyMasker, guard: StreamKeyGuard): string {
  let text = '';
  const emit = (event: SseEvent): void => {
    text += formatSseEvent(event);
  };
  const parser = createParser({
    onEvent: (event) => guard.relay(event, emit),
    onComment: (comment) => {
      text += formatSseComment(comment);
    },
  });
  parser.feed(masker.maskText(new SseTextDecoder().decode(raw)));
  return text;
}
