import type { SseEvent } from '../sse.ts';
import { eventJson } from '../sse.ts';
import { FieldKeyGuard, type Emit, type Json } from '../streamKeyGuard.ts';
import { isRecord } from '../../core/isRecord.ts';
import { finishReasonOf } from './finishReason.ts';
import { isChatStreamEnd } from './streamEnd.ts';
import type { RelayThinkingField } from './relayThinking.ts';
import { LogprobGuard } from './logprobGuard.ts';
import type { KeyMasker } from '../../core/keyMasker.ts';

/** Legacy completions stream `choices[].text`. */
const LEGACY_TEXT_FIELD = 'text';
const TOOL_FIELD_PREFIX = 'tool ';
/**
 * A tool call's id and name, and a legacy function call's name: a client may join their pieces
 * (openai-python's stream helper joins every string, LangChain names, aider the function call's), take the
 * first delta's as whole (Vercel AI SDK) or keep the last (openai-node, Cline). Never held, they never
 * hold a choice up; their keys do not begin with TOOL_FIELD_PREFIX, whose held text goes in `arguments`.
 */
const CALL_ID_PREFIX = 'id of tool ';
const CALL_NAME_PREFIX = 'name of tool ';
const FUNCTION_CALL_NAME_FIELD = 'function_call name';
/** The text of Mistral's thinking parts (contentParts.ts), a field of its own beside `content`. */
const THINKING_PARTS_FIELD = 'thinking parts';
/** A relay's thinking blocks (relayThinking.ts): LiteLLM's run on as one text, OpenRouter's by their `index`. */
const RELAY_BLOCKS_PREFIX = 'relay ';
/** A delta's fields that hold text as a plain string. */
const PLAIN_TEXT_FIELDS = ['content', 'reasoning_content', 'reasoning', 'refusal'] as const;
/**
 * Text a client joins inside a delta's object: an audio answer's `transcript` (gpt-4o-audio) and the
 * legacy `function_call`'s `arguments`; openai-node's ChatCompletionStream appends both. The field is the object's name.
 */
const NESTED_TEXT: Readonly<Record<string, string>> = { audio: 'transcript', function_call: 'arguments' };

/**
 * Chat Completions (and legacy completions): per choice, clients concatenate `content`,
 * `reasoning_content` (DeepSeek and others), `reasoning`, `refusal` and each tool call's
 * arguments; a choice ends with its finish_reason, the stream with [DONE].
 */
export class ChatKeyGuard extends FieldKeyGuard<string> {
  readonly #masker: KeyMasker;
  /** Made at the first chunk that carries logprobs: most streams never do, and each open stream holds its guard. */
  #logprobs: LogprobGuard | null = null;
  #lastChunk: Json = {};
  /** Field keys by choice and field name, made once: a key made per delta cost an allocation and a hash each time. */
  readonly #keys: Array<Record<string, string>> = [];

  constructor(masker: KeyMasker) {
    super(masker);
    this.#masker = masker;
  }

  override get masked(): boolean {
    return this.fields.masked || this.#logprobs?.masked === true;
  }

  override get holding(): boolean {
    return this.fields.holding || this.#logprobs?.holding === true;
  }

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

  relay(event: SseEvent, emit: Emit): void {
    if (isChatStreamEnd(event)) {
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
    // Only a chunk that may go on from a held field to others needs the fields its choices carry.
    const handed: Json[] | null = this.fields.holding && !this.#goesOnWhereHeld(choices) ? [] : null;
    for (let position = 0; position < choices.length; position += 1) {
      const choice: unknown = choices[position];
      if (isRecord(choice)) this.#guardChoice(choice, typeof choice.index === 'number' ? choice.index : position, handed);
    }
    if (handed !== null && handed.length > 0) {
      const { id, object, created, model } = chunk;
      emit({ data: JSON.stringify({ id, object, created, model, choices: handed }) });
    }
    this.fields.rewrite(event, chunk);
    emit(event);
  }

  /**
   * Guards the choice's fields, noting those its delta carries text (or a tool call) in when `handed`
   * collects what paused fields hand on; then its logprobs, and its held text if it finished.
   */
  #guardChoice(choice: Json, index: number, handed: Json[] | null): void {
    const carried = handed === null ? null : new Set<string>();
    const delta = choice.delta;
    if (isRecord(delta)) {
      // Named reads, not a loop over the names: each site then sees one property, the cheap case on every delta.
      if (typeof delta.content === 'string') this.#guardText(this.#key(index, 'content'), delta, 'content', carried);
      else if (Array.isArray(delta.content)) this.#guardContentParts(delta.content, index, carried);
      if (typeof delta.reasoning_content === 'string')
        this.#guardText(this.#key(index, 'reasoning_content'), delta, 'reasoning_content', carried);
      if (typeof delta.reasoning === 'string') this.#guardText(this.#key(index, 'reasoning'), delta, 'reasoning', carried);
      if (typeof delta.refusal === 'string') this.#guardText(this.#key(index, 'refusal'), delta, 'refusal', carried);
      if (Array.isArray(delta.thinking_blocks)) this.#guardRelayBlocks(delta.thinking_blocks, index, 'thinking_blocks', carried);
      if (Array.isArray(delta.reasoning_details)) this.#guardRelayBlocks(delta.reasoning_details, index, 'reasoning_details', carried);
      if (isRecord(delta.audio) && typeof delta.audio.transcript === 'string')
        this.#guardText(this.#key(index, 'audio'), delta.audio, 'transcript', carried);
      if (isRecord(delta.function_call)) {
        if (typeof delta.function_call.arguments === 'string')
          this.#guardText(this.#key(index, 'function_call'), delta.function_call, 'arguments', carried);
        this.fields.guardHandingOn(this.#key(index, FUNCTION_CALL_NAME_FIELD), delta.function_call, 'name');
      }
      if (Array.isArray(delta.tool_calls)) this.#guardToolCalls(delta.tool_calls, index, carried);
    }
    if (typeof choice.text === 'string') this.#guardText(this.#key(index, LEGACY_TEXT_FIELD), choice, LEGACY_TEXT_FIELD, carried);
    if (carried !== null && carried.size > 0 && handed !== null) this.#handOnPaused(index, carried, handed);
    const finished = finishReasonOf(choice.finish_reason) !== null;
    if (isRecord(choice.logprobs)) this.#logprobs ??= new LogprobGuard(this.#masker);
    if (this.#logprobs?.guard(choice, index, finished)) this.fields.noteReshaped();
    if (finished && this.#flushChoice(choice, index)) this.fields.noteReshaped();
  }

  /**
   * Each call's arguments run on as one text; its name and id are guarded without holding anything
   * back (FieldStreams.guardHandingOn): some clients take the first delta's as whole, some join them.
   */
  #guardToolCalls(calls: unknown[], index: number, carried: Set<string> | null): void {
    calls.forEach((call: unknown, position) => {
      const callIndex = isRecord(call) && typeof call.index === 'number' ? call.index : position;
      const argumentsKey = this.#key(index, `${TOOL_FIELD_PREFIX}${callIndex}`);
      // Any piece of a call, its arguments or not, goes on with that call.
      carried?.add(argumentsKey);
      if (!isRecord(call)) return;
      // Most deltas carry arguments only: no key is made for a name or id they do not carry.
      if (typeof call.id === 'string') this.fields.guardHandingOn(this.#key(index, `${CALL_ID_PREFIX}${callIndex}`), call, 'id');
      if (!isRecord(call.function)) return;
      if (typeof call.function.name === 'string') {
        this.fields.guardHandingOn(this.#key(index, `${CALL_NAME_PREFIX}${callIndex}`), call.function, 'name');
      }
      this.fields.guard(argumentsKey, call.function, 'arguments');
    });
  }

  /** Mistral's content parts: text parts run on as `content` (a client joins them with string content), thinking parts' text as a field of its own. */
  #guardContentParts(parts: unknown[], index: number, carried: Set<string> | null): void {
    for (const part of parts) {
      if (!isRecord(part)) continue;
      if (part.type !== 'thinking') {
        const key = this.#key(index, 'content');
        carried?.add(key);
        this.fields.guard(key, part, 'text');
        continue;
      }
      const key = this.#key(index, THINKING_PARTS_FIELD);
      carried?.add(key);
      if (typeof part.thinking === 'string') this.fields.guard(key, part, 'thinking');
      else if (Array.isArray(part.thinking)) {
        for (const inner of part.thinking) if (isRecord(inner)) this.fields.guard(key, inner, 'text');
      }
    }
  }

  /**
   * A relay's thinking blocks repeat the thinking text beside it, and a translated client gets them
   * in its thinking's signature: their text is guarded as a field of its own. A block ends with its
   * signature, so what its text held back goes in the signature's piece, the block whole before it.
   */
  #guardRelayBlocks(blocks: unknown[], index: number, field: RelayThinkingField, carried: Set<string> | null): void {
    for (const block of blocks) {
      if (!isRecord(block)) continue;
      const property = relayTextProperty(field, block);
      const key = this.#key(index, relayBlocksKey(field, block.index, property));
      carried?.add(key);
      this.fields.guard(key, block, property);
      if (typeof block.signature !== 'string' || block.signature === '') continue;
      const rest = this.fields.end(key);
      if (rest === '') continue;
      block[property] = `${typeof block[property] === 'string' ? block[property] : ''}${rest}`;
      this.fields.noteReshaped();
    }
  }

  /** A field's text, noted among those its choice carries when `carried` collects them. */
  #guardText(key: string, holder: Json, property: string, carried: Set<string> | null): void {
    if (carried !== null && holder[property] !== '') carried.add(key);
    this.fields.guard(key, holder, property);
  }

  /**
   * A choice that goes on to other fields than those holding text (its answer after its thinking, a
   * tool call after text) gets their held text first, in a chunk of its own (`handed`, sent before
   * this one): held to the finish, it came after the rest, and a translated client showed it as a
   * block of its own (a second thinking block after Claude Code's text, a reasoning item after Codex's message).
   */
  #handOnPaused(index: number, carried: ReadonlySet<string>, handed: Json[]): void {
    const paused = this.#holdingKeysOf(index).filter((key) => !carried.has(key));
    const handedChoice: Json = { index, delta: {}, finish_reason: null };
    if (this.#addHeld(handedChoice, index, paused, (key) => this.fields.handOn(key))) handed.push(handedChoice);
  }

  /**
   * The common case, told without #handOnPaused's lists: one choice whose delta goes on in the one
   * field holding text (a streamed answer's next piece), so nothing paused has anything to hand on.
   */
  #goesOnWhereHeld(choices: unknown[]): boolean {
    const choice = choices.length === 1 ? choices[0] : undefined;
    if (!isRecord(choice) || !isRecord(choice.delta)) return false;
    const index = typeof choice.index === 'number' ? choice.index : 0;
    const delta = choice.delta;
    for (const field of PLAIN_TEXT_FIELDS) {
      const text = delta[field];
      if (typeof text === 'string' && text !== '') return this.fields.holdsNoneBut(this.#key(index, field));
    }
    return false;
  }

  #holdingKeysOf(index: number): string[] {
    const prefix = `${index} `;
    return this.fields.holdingKeys().filter((key) => key.startsWith(prefix));
  }

  /** The choice ended: its held text goes in this chunk, appended to the fields it belongs to. */
  #flushChoice(choice: Json, index: number): boolean {
    return this.#addHeld(choice, index, this.#holdingKeysOf(index), (key) => this.fields.end(key));
  }

  /** The text `take` gives of each field, appended to the choice where that field belongs. */
  #addHeld(choice: Json, index: number, keys: readonly string[], take: (key: string) => string): boolean {
    let changed = false;
    const prefix = `${index} `;
    for (const key of keys) {
      const rest = take(key);
      if (rest === '') continue;
      changed = true;
      const field = key.slice(prefix.length);
      if (field === LEGACY_TEXT_FIELD) {
        choice.text = `${typeof choice.text === 'string' ? choice.text : ''}${rest}`;
        continue;
      }
      if (!isRecord(choice.delta)) choice.delta = {};
      const delta = choice.delta as Json;
      if (field.startsWith(RELAY_BLOCKS_PREFIX)) {
        addRelayBlockPiece(delta, field.slice(RELAY_BLOCKS_PREFIX.length), rest);
        continue;
      }
      const nestedProperty = NESTED_TEXT[field];
      if (nestedProperty !== undefined) {
        const holder = isRecord(delta[field]) ? (delta[field] as Json) : {};
        holder[nestedProperty] = `${typeof holder[nestedProperty] === 'string' ? holder[nestedProperty] : ''}${rest}`;
        delta[field] = holder;
        continue;
      }
      if (field === THINKING_PARTS_FIELD || (field === 'content' && Array.isArray(delta.content))) {
        delta.content = [...contentPartsOf(delta.content), field === 'content' ? { type: 'text', text: rest } : thinkingPart(rest)];
        continue;
      }
      if (!field.startsWith(TOOL_FIELD_PREFIX)) {
        delta[field] = `${typeof delta[field] === 'string' ? delta[field] : ''}${rest}`;
        continue;
      }
      const callIndex = Number(field.slice(TOOL_FIELD_PREFIX.length));
      if (!Array.isArray(delta.tool_calls)) delta.tool_calls = [];
      const calls = delta.tool_calls as unknown[];
      const call = calls.find(
        (candidate): candidate is Json => isRecord(candidate) && candidate.index === callIndex && isRecord(candidate.function),
      );
      if (call) (call.function as Json).arguments = `${String((call.function as Json).arguments ?? '')}${rest}`;
      else calls.push({ index: callIndex, function: { arguments: rest } });
    }
    return changed;
  }

  /** [DONE] came while choices still held text (no finish_reason): a chunk of its own hands it on first. */
  #flushAll(emit: Emit): void {
    const indexes = new Set(this.fields.holdingKeys().map((key) => Number(key.slice(0, key.indexOf(' ')))));
    for (const index of this.#logprobs?.heldChoices() ?? []) indexes.add(index);
    for (const index of indexes) {
      const choice: Json = { index, delta: {}, finish_reason: null };
      const logprobsChanged = this.#logprobs?.guard(choice, index, true) === true;
      if (!this.#flushChoice(choice, index) && !logprobsChanged) continue;
      const { id, object, created, model } = this.#lastChunk;
      emit({ data: JSON.stringify({ id, object, created, model, choices: [choice] }) });
    }
  }
}

/** A delta's content as a list of parts, to add a held part to: string content becomes a text part. */
function contentPartsOf(content: unknown): unknown[] {
  if (Array.isArray(content)) return content;
  return typeof content === 'string' && content !== '' ? [{ type: 'text', text: content }] : [];
}

const thinkingPart = (text: string): Json => ({ type: 'thinking', thinking: [{ type: 'text', text }] });

/**
 * A relay block's guarded field: LiteLLM's blocks run on as one, OpenRouter's are told apart by their
 * index and the property holding their text (openai-python's stream helper joins details by index).
 */
function relayBlocksKey(field: RelayThinkingField, blockIndex: unknown, property: string): string {
  return field === 'thinking_blocks'
    ? `${RELAY_BLOCKS_PREFIX}${field}`
    : `${RELAY_BLOCKS_PREFIX}${field} ${Number(blockIndex ?? 0)} ${property}`;
}

/** Where a relay block's text is: LiteLLM's `thinking`, OpenRouter's `summary` on a summary, else `text`. */
function relayTextProperty(field: RelayThinkingField, block: Json): string {
  if (field === 'thinking_blocks') return 'thinking';
  return block.type === 'reasoning.summary' ? 'summary' : 'text';
}

/** Text a relay block held back when its choice ended without a signature: a piece of its own, of that block. */
function addRelayBlockPiece(delta: Json, relayField: string, rest: string): void {
  const [field, blockIndex, property = 'text'] = relayField.split(' ') as [RelayThinkingField, string | undefined, string | undefined];
  const piece =
    field === 'thinking_blocks'
      ? { type: 'thinking', thinking: rest }
      : { type: property === 'summary' ? 'reasoning.summary' : 'reasoning.text', [property]: rest, index: Number(blockIndex) };
  delta[field] = [...(Array.isArray(delta[field]) ? delta[field] : []), piece];
}
