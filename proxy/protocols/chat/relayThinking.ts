import { isRecord } from '../../core/isRecord.ts';
import { base64DataBytes, base64DataChars } from '../anthropic/encryptedThinking.ts';

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

const nonEmptyString = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A block's (or a streamed piece's) visible thinking: LiteLLM's `thinking`, OpenRouter's `text` or `summary`. */
function visibleTextOf(block: RelayBlock): string {
  return nonEmptyString(block.thinking) || nonEmptyString(block.text) || nonEmptyString(block.summary);
}

/** Claude's redacted thinking: its encrypted `data`. LiteLLM keeps Anthropic's block; OpenRouter calls it reasoning.encrypted, in Anthropic's format. */
function redactedDataOf(block: RelayBlock): string {
  if (block.type === 'redacted_thinking') return nonEmptyString(block.data);
  const anthropicFormat = typeof block.format === 'string' && block.format.startsWith('anthropic');
  return block.type === 'reasoning.encrypted' && anthropicFormat ? nonEmptyString(block.data) : '';
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
      const signature = nonEmptyString(block.signature);
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
