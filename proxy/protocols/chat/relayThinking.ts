import { hash } from 'node:crypto';
import { isRecord } from '../../core/isRecord.ts';
import { base64DataBytes, base64DataChars } from '../anthropic/encryptedThinking.ts';
import type { AssistantMessage } from './chatMessages.ts';
import { AIRLOCK_MARK_PREFIX, reasoningMark, type ReasoningField } from './returnedReasoning.ts';

/**
 * Relays that put Claude behind a chat completions API hand on its thinking blocks, signatures
 * included, beside the plain thinking text:
 * - LiteLLM: `thinking_blocks`, `[{type: "thinking", thinking, signature}]` and
 *   `{type: "redacted_thinking", data}`; streamed in `delta.thinking_blocks`, each thinking piece a
 *   block of its own with no signature, the signature in a piece of its own with no thinking
 *   (docs.litellm.ai/docs/reasoning_content; BerriAI/litellm's anthropic stream handler).
 * - OpenRouter: `reasoning_details`, `[{type: "reasoning.text", text, signature, format, index}]` and
 *   `{type: "reasoning.encrypted", data}` (Claude's redacted thinking among them); streamed by `index`,
 *   the signature in a piece of its own (openrouter.ai/docs/use-cases/reasoning-tokens; the recorded
 *   streams of charmbracelet/fantasy's TestOpenRouterThinking cassettes).
 * The signature of a Claude 4 model holds its full thinking, of which the text is a summary or nothing.
 *
 * Claude refuses a tool result whose assistant turn lost its thinking blocks (LiteLLM passes the 400
 * on, unless told to drop thinking for that turn), and OpenRouter drops the thinking quietly: the
 * blocks must go back as they came, on the assistant message. The path is stateless, so they ride
 * in the thinking block's signature or the reasoning item's encrypted_content a translated client
 * hands back unchanged (returnedReasoning.ts), and go back on the tool-call turn they led to.
 *
 * Only to the model that made them: Claude's signatures verify on that model alone, and a turn sent to
 * another with them is refused ("Invalid `signature` in `thinking` block": vybestack/llxprt-code#2335,
 * CommonstackAI/UncommonRoute#19), through a relay too (OpenRouter passes them to the provider, which
 * checks them: OpenRouterTeam/ai-sdk-provider#491). A fallback step to another model on the same
 * gateway gets none: OpenRouter then answers without thinking, LiteLLM with `modify_params` drops
 * thinking for the turn (without it, it passes on Anthropic's 400 either way).
 */
export type RelayThinkingField = 'thinking_blocks' | 'reasoning_details';

type RelayBlock = Record<string, unknown>;

export interface RelayThinking {
  field: RelayThinkingField;
  blocks: RelayBlock[];
}

/** The relay thinking a message or delta carries, or null: none, or an empty list. */
export function relayThinkingOf(fields: Record<string, unknown> | null | undefined): RelayThinking | null {
  for (const field of ['thinking_blocks', 'reasoning_details'] as const) {
    const blocks = fields?.[field];
    if (Array.isArray(blocks) && blocks.some(isRecord)) return { field, blocks: blocks.filter(isRecord) };
  }
  return null;
}

/** A field's text, '' when it holds none (absent, null, not a string). */
const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A block's (or a streamed piece's) visible thinking: LiteLLM's `thinking`, OpenRouter's `text` or `summary`. */
function visibleTextOf(block: RelayBlock): string {
  return stringOf(block.thinking) || stringOf(block.text) || stringOf(block.summary);
}

/** Claude's redacted thinking: its encrypted `data`. LiteLLM keeps Anthropic's block; OpenRouter calls it reasoning.encrypted, in Anthropic's format. */
function redactedDataOf(block: RelayBlock): string {
  if (block.type === 'redacted_thinking') return stringOf(block.data);
  const anthropicFormat = typeof block.format === 'string' && block.format.startsWith('anthropic');
  return block.type === 'reasoning.encrypted' && anthropicFormat ? stringOf(block.data) : '';
}

/** Whether the blocks hold what only the relay can verify: a signature, or redacted or encrypted thinking. */
function holdsSignedThinking(blocks: readonly RelayBlock[]): boolean {
  return blocks.some((block) => stringOf(block.signature) !== '' || stringOf(block.data) !== '');
}

/** Relay thinking that must go back to the relay (signed), or null. */
export function signedRelayThinking(thinking: RelayThinking | null | undefined): RelayThinking | null {
  return thinking !== null && thinking !== undefined && holdsSignedThinking(thinking.blocks) ? thinking : null;
}

/** The string fields a streamed piece adds to its block's: the rest (type, format, index, id) come with its first piece. */
const APPENDED_FIELDS = ['thinking', 'text', 'summary', 'data', 'signature'] as const;

function appended(block: RelayBlock, piece: RelayBlock): RelayBlock {
  const joined: RelayBlock = { ...piece, ...block };
  for (const field of APPENDED_FIELDS) {
    const added = stringOf(piece[field]);
    if (added !== '') joined[field] = stringOf(block[field]) + added;
  }
  return joined;
}

/** The piece without its null fields: LiteLLM's thinking pieces say `signature: null`, which no block sent back may say. */
function withoutNullFields(piece: RelayBlock): RelayBlock {
  return Object.fromEntries(Object.entries(piece).filter(([, value]) => value !== null));
}

/** Which block a piece continues, or -1 for a block of its own: OpenRouter's by index and type, LiteLLM's the open one (see RelayThinkingReader). */
function continuedBlock(field: RelayThinkingField, blocks: readonly RelayBlock[], piece: RelayBlock): number {
  if (field === 'reasoning_details') {
    if (typeof piece.index !== 'number') return -1;
    return blocks.findLastIndex((block) => block.index === piece.index && block.type === piece.type);
  }
  const last = blocks.at(-1);
  if (last?.type !== 'thinking' || piece.type !== 'thinking' || stringOf(last.signature) !== '') return -1;
  return blocks.length - 1;
}

/** Relay thinking with more pieces (a stream's, or another block's handed back): each joined to the block it continues. */
export function joinedRelayThinking(earlier: RelayThinking | null | undefined, more: RelayThinking): RelayThinking {
  // Another relay's blocks (a session moved between profiles) replace the earlier relay's: neither takes the other's.
  if (earlier !== null && earlier !== undefined && earlier.field !== more.field) return more;
  const blocks = [...(earlier?.blocks ?? [])];
  for (const piece of more.blocks) {
    const at = continuedBlock(more.field, blocks, piece);
    if (at < 0) blocks.push(withoutNullFields(piece));
    else blocks[at] = appended(blocks[at] as RelayBlock, piece);
  }
  return { field: more.field, blocks };
}

/** Who answered: the gateway (gatewayTagOf) and the model Airlock asked it for. */
export interface AnswerSource {
  gatewayTag: string;
  upstreamModel: string;
}

/** The tag a relay's signed blocks carry: a short digest of the gateway and model that signed them. */
function signerTagOf({ gatewayTag, upstreamModel }: AnswerSource): string {
  return hash('sha256', `${gatewayTag}\n${upstreamModel}`, 'base64url').slice(0, 12);
}

/**
 * The mark a translated thinking block's signature or reasoning item's encrypted_content carries:
 * the relay's signed blocks when it sent some, with the gateway and model that signed them
 * (`airlock:thinking_blocks:<signer tag>:<base64url JSON>`), else where its thinking came from
 * (returnedReasoning.ts: the gateway only).
 */
export function thinkingMark(field: ReasoningField, relay: RelayThinking | null | undefined, source: AnswerSource): string {
  const signed = signedRelayThinking(relay);
  if (signed === null) return reasoningMark(field, source.gatewayTag);
  return `${AIRLOCK_MARK_PREFIX}${signed.field}:${signerTagOf(source)}:${Buffer.from(JSON.stringify(signed.blocks)).toString('base64url')}`;
}

/**
 * The relay thinking a mark a client handed back carries for the gateway and model `target` names, or
 * null (another gateway's or model's, a mark made before marks named one, another mark, or not one at all).
 */
export function relayThinkingOfMark(mark: unknown, target: AnswerSource): RelayThinking | null {
  if (typeof mark !== 'string') return null;
  for (const field of ['thinking_blocks', 'reasoning_details'] as const) {
    const prefix = `${AIRLOCK_MARK_PREFIX}${field}:${signerTagOf(target)}:`;
    if (!mark.startsWith(prefix)) continue;
    try {
      const blocks: unknown = JSON.parse(Buffer.from(mark.slice(prefix.length), 'base64url').toString('utf8'));
      return Array.isArray(blocks) ? { field, blocks: blocks.filter(isRecord) } : null;
    } catch {
      // Not one Airlock made: nothing to send back.
      return null;
    }
  }
  return null;
}

/** Gives a tool-call turn the relay's blocks handed back for it, after any it has. */
export function addRelayThinking(turn: AssistantMessage, relay: RelayThinking): void {
  const earlier = turn[relay.field];
  turn[relay.field] = joinedRelayThinking(earlier === undefined ? null : { field: relay.field, blocks: earlier }, relay).blocks;
}

/** What the output estimate is told of relay thinking: a block's visible thinking, its signature's bytes so far, redacted thinking's bytes. */
export interface RelayThinkingSink {
  onThinking(blockIndex: number, text: string): void;
  onThinkingSignature(blockIndex: number, signatureBytes: number): void;
  onOpaqueOutput(bytes: number): void;
  /** Thinking with no signature to weigh it against (OpenRouter's reasoning.summary). */
  onOtherOutput(text: string): void;
}

/**
 * Reads relay thinking piece by piece, as a stream gives it or a whole answer's list: each block's
 * visible thinking and signature by the block, once. LiteLLM's pieces name no block: a block ends
 * with its signature (or is a redacted one), and the next thinking starts another.
 * OpenRouter's name theirs by `index`.
 */
export class RelayThinkingReader {
  readonly #sink: RelayThinkingSink;
  readonly #signatureChars = new Map<number, number>();
  /** LiteLLM's block being read, and whether its signature has begun. */
  #sequenceIndex = 0;
  #sequenceSigned = false;

  constructor(sink: RelayThinkingSink) {
    this.#sink = sink;
  }

  read({ field, blocks }: RelayThinking): void {
    for (const block of blocks) {
      const redacted = redactedDataOf(block);
      if (redacted !== '') {
        this.#sink.onOpaqueOutput(base64DataBytes(base64DataChars(redacted)));
        if (field === 'thinking_blocks') this.#nextSequenceBlock();
        continue;
      }
      const text = visibleTextOf(block);
      const signature = stringOf(block.signature);
      if (field === 'reasoning_details' && block.type === 'reasoning.summary') {
        if (text !== '') this.#sink.onOtherOutput(text);
        continue;
      }
      if (field === 'thinking_blocks' && text !== '' && this.#sequenceSigned) this.#nextSequenceBlock();
      const blockIndex = field === 'thinking_blocks' ? this.#sequenceIndex : typeof block.index === 'number' ? block.index : 0;
      if (text !== '') this.#sink.onThinking(blockIndex, text);
      if (signature === '') continue;
      const chars = (this.#signatureChars.get(blockIndex) ?? 0) + base64DataChars(signature);
      this.#signatureChars.set(blockIndex, chars);
      this.#sink.onThinkingSignature(blockIndex, base64DataBytes(chars));
      if (field === 'thinking_blocks') this.#sequenceSigned = true;
    }
  }

  #nextSequenceBlock(): void {
    this.#sequenceIndex += 1;
    this.#sequenceSigned = false;
  }
}
