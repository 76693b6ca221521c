import { hash } from 'node:crypto';
import type { Dialect } from './dialect.ts';
import { errorBody } from './errors.ts';
import type { CapabilityRefusal } from './modelCapabilities.ts';

/**
 * Claude's signed thinking through a relay's chat completions API (Dialect.relaysClaudeThinking):
 * - LiteLLM answers `thinking_blocks: [{type: "thinking", thinking, signature}]` beside
 *   `reasoning_content`; streamed, each thinking piece is a block of its own with `signature: null`,
 *   then the signature alone in one with empty thinking (docs.litellm.ai/docs/reasoning_content;
 *   BerriAI/litellm's anthropic stream handler). A tool turn sent back without them gets Anthropic's
 *   400 "Expected `thinking` or `redacted_thinking`, but found `tool_use`" (the docs' "Tool Calling
 *   with thinking"; anomalyco/opencode#3077, openai/openai-agents-python#1704).
 * - OpenRouter answers `reasoning_details: [{type: "reasoning.text", text, signature, format, index}]`
 *   beside `reasoning`; streamed by `index`, the signature in a piece of its own
 *   (openrouter.ai/docs/use-cases/reasoning-tokens, "Preserving reasoning blocks"). A turn sent back
 *   without them is answered, its thinking dropped: recorded in charmbracelet/fantasy's
 *   TestOpenRouterThinking/claude-sonnet-4-sig cassettes, where the turn sent back without
 *   reasoning_details came back with no reasoning at all.
 * A signature that is not the one given for that thinking is Anthropic's 400 "Invalid `signature`
 * in `thinking` block" through either (anthropics/claude-code#10627). So is one another Claude model
 * gave: signatures are bound to the model that made them, and a conversation moved to another model
 * with them is refused (vybestack/llxprt-code#2335, CommonstackAI/UncommonRoute#19,
 * anthropics/claude-code#63229); OpenRouter passes them on to the provider, which checks them
 * (OpenRouterTeam/ai-sdk-provider#491, cited in mastra-ai/mastra#23433, for Gemini's).
 */
const FORMAT = 'anthropic-claude-v1';

/**
 * The signature the simulator gives the thinking of `model`: opaque, as Claude's (Anthropic's extended-thinking
 * docs: an encrypted field to hand back unchanged), yet checkable here, a digest of the model and the thinking.
 * Not the thinking in base64: no relay sends that, and a key in the thinking would then be in the signature too.
 */
export function relayThinkingSignature(model: string, thinking: string): string {
  return `EqoB${hash('sha256', `signed:${model}:${thinking}`, 'base64')}`;
}

/** The message fields a whole answer's signed thinking (by `model`) adds, in the dialect's shape. */
export function relayThinkingFields(dialect: Dialect, model: string, thinking: string): object {
  const signature = relayThinkingSignature(model, thinking);
  if (dialect.relaysClaudeThinking === 'thinking_blocks') return { thinking_blocks: [{ type: 'thinking', thinking, signature }] };
  if (dialect.relaysClaudeThinking === 'reasoning_details')
    return { reasoning_details: [{ type: 'reasoning.text', text: thinking, signature, format: FORMAT, index: 0 }] };
  return {};
}

/** What a streamed piece of thinking adds to its delta beside the text field. */
export function relayThinkingPieceFields(dialect: Dialect, piece: string): object {
  if (dialect.relaysClaudeThinking === 'thinking_blocks')
    return { thinking_blocks: [{ type: 'thinking', thinking: piece, signature: null }] };
  if (dialect.relaysClaudeThinking === 'reasoning_details')
    return { reasoning_details: [{ type: 'reasoning.text', text: piece, format: FORMAT, index: 0 }] };
  return {};
}

/** The delta that ends streamed thinking (by `model`) with its signature; null for a dialect that sends none. */
export function relayThinkingSignatureDelta(dialect: Dialect, model: string, thinking: string): object | null {
  const signature = relayThinkingSignature(model, thinking);
  if (dialect.relaysClaudeThinking === 'thinking_blocks')
    return { reasoning_content: '', thinking_blocks: [{ type: 'thinking', thinking: '', signature }] };
  if (dialect.relaysClaudeThinking === 'reasoning_details')
    return { reasoning: null, reasoning_details: [{ type: 'reasoning.text', signature, format: FORMAT, index: 0 }] };
  return null;
}

type SentMessage = { role?: unknown; tool_calls?: unknown; thinking_blocks?: unknown; reasoning_details?: unknown } | null;
type SentBlock = { thinking?: unknown; text?: unknown; signature?: unknown } | null;

/** The current turn's tool-call turns (since the last user message): those Claude needs the thinking of. */
function currentToolCallTurns(messages: unknown): [number, NonNullable<SentMessage>][] {
  if (!Array.isArray(messages)) return [];
  const sent = messages as SentMessage[];
  const lastUser = sent.findLastIndex((message) => message?.role === 'user');
  return sent.flatMap((message, index): [number, NonNullable<SentMessage>][] =>
    index > lastUser && message?.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0
      ? [[index, message]]
      : [],
  );
}

function sentBlocks(dialect: Dialect, message: NonNullable<SentMessage>): SentBlock[] | null {
  const blocks = dialect.relaysClaudeThinking === null ? undefined : message[dialect.relaysClaudeThinking];
  return Array.isArray(blocks) ? (blocks as SentBlock[]) : null;
}

/**
 * A current tool turn sent back to `model` with a block whose signature is not its thinking's by that model, or
 * (LiteLLM) without its blocks: the 400. Null otherwise.
 */
export function relayThinkingRefusal(dialect: Dialect, model: string, messages: unknown): CapabilityRefusal | null {
  if (dialect.relaysClaudeThinking === null) return null;
  for (const [index, message] of currentToolCallTurns(messages)) {
    const blocks = sentBlocks(dialect, message);
    if (blocks === null && dialect.relaysClaudeThinking === 'thinking_blocks') {
      const said =
        `litellm.BadRequestError: AnthropicException - messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, ` +
        'but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block.';
      return { status: 400, body: errorBody(said, 'invalid_request_error', '400'), subject: '' };
    }
    const forged = (blocks ?? []).some(
      (block) => block?.signature !== relayThinkingSignature(model, String(block?.thinking ?? block?.text ?? '')),
    );
    if (forged) {
      const said = `messages.${index}.content.0: Invalid \`signature\` in \`thinking\` block`;
      return { status: 400, body: errorBody(said, 'invalid_request_error', '400'), subject: '' };
    }
  }
  return null;
}

/** Whether the model answers without thinking: OpenRouter drops Claude's thinking for a turn whose tool calls came back without it. */
export function dropsRelayThinking(dialect: Dialect, messages: unknown): boolean {
  return (
    dialect.relaysClaudeThinking === 'reasoning_details' &&
    currentToolCallTurns(messages).some(([, message]) => sentBlocks(dialect, message) === null)
  );
}
