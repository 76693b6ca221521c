import type { TokenUsage } from '../../contracts/usage.ts';
import type { ChatChunkReading, ToolCallDelta } from './chatShapes.ts';
import type { ReasoningField } from './returnedReasoning.ts';
import { clientCallId } from './thoughtSignature.ts';
import { callContinued, joinedToolCallName } from './toolCallName.ts';
import { joinedRelayThinking, signedRelayThinking, type RelayThinking } from './relayThinking.ts';

/**
 * Turns Chat Completions stream chunks into an ordered sequence of output blocks (reasoning,
 * text, refusal, tool calls), which the Anthropic and Responses translators render in their own event vocabulary.
 *
 * Both target protocols expect one block to be open at a time, while a chat upstream may
 * interleave several tool calls by `index`. So only the first unfinished block streams live;
 * pieces for later blocks are held (each piece kept as it arrived) and released in order when
 * the blocks before them close. A reasoning, text or refusal block closes when any other block starts; tool calls close at
 * the end of the stream, the only point where an upstream promises no more argument pieces.
 */

export type StreamBlock =
  /**
   * `field`: the chat field the thinking came in, which decides whether it may go back (returnedReasoning.ts);
   * `relayThinking`: a relay's thinking blocks so far, signatures included (relayThinking.ts).
   */
  | { position: number; kind: 'reasoning'; text: string; field: ReasoningField; relayThinking?: RelayThinking }
  | { position: number; kind: 'text'; text: string }
  /** The model declining (`delta.refusal`): Responses has a content part for it, Anthropic shows it as text. */
  | { position: number; kind: 'refusal'; text: string }
  /** `callId`: the id the client is given, Gemini's thought signature folded in (thoughtSignature.ts). */
  | { position: number; kind: 'tool'; callId: string; name: string; arguments: string };

/** Each event carries a copy of the block as it was at that moment. */
export type BlockEvent =
  | { type: 'start'; block: StreamBlock }
  | { type: 'delta'; block: StreamBlock; piece: string }
  | { type: 'stop'; block: StreamBlock };

interface TrackedBlock {
  block: StreamBlock;
  chatIndex: number | null;
  /** A tool call's id as the gateway gave it. */
  chatId: string | null;
  /** A tool call's id before any signature: the gateway's, or one made for it. */
  unsignedCallId: string | null;
  signed: boolean;
  heldPieces: string[];
  started: boolean;
  /** No more pieces will come (a later block began, or the stream ended). */
  closed: boolean;
  stopped: boolean;
}

export interface ChatStreamBlocks {
  apply(reading: ChatChunkReading): BlockEvent[];
  /** Closes every block in order; call once, when the upstream stream has ended. */
  closeAll(): BlockEvent[];
  finishReason(): string | null;
  usage(): TokenUsage | null;
  hasToolCalls(): boolean;
}

/**
 * `callIdPrefix` names tool calls whose upstream sent no id; it must be unique per response.
 * `gatewayTag`: the gateway that answers, named in a signed call's id (thoughtSignature.ts).
 */
export function createChatStreamBlocks(callIdPrefix: string, gatewayTag: string): ChatStreamBlocks {
  const tracked: TrackedBlock[] = [];
  let finishReason: string | null = null;
  let usage: TokenUsage | null = null;

  function append(block: StreamBlock, chatIndex: number | null, chatId: string | null = null): TrackedBlock {
    const last = tracked.at(-1);
    if (last && last.block.kind !== 'tool') last.closed = true;
    const unsignedCallId = block.kind === 'tool' ? block.callId : null;
    const entry: TrackedBlock = {
      block,
      chatIndex,
      chatId,
      unsignedCallId,
      signed: false,
      heldPieces: [],
      started: false,
      closed: false,
      stopped: false,
    };
    tracked.push(entry);
    return entry;
  }

  function textTarget(kind: 'reasoning' | 'text' | 'refusal', field: ReasoningField = 'reasoning_content'): TrackedBlock {
    const last = tracked.at(-1);
    if (last && last.block.kind === kind && !last.closed) return last;
    const position = tracked.length;
    return append(kind === 'reasoning' ? { position, kind, text: '', field } : { position, kind, text: '' }, null);
  }

  /**
   * A new id is a new call, also where an upstream numbers every call `index: 0`; pieces without
   * an id continue the latest call with their index (or the latest call when there is no index).
   * A new id without a name at the index of a call already begun continues that call: Poolside
   * gives a call's later pieces another id than its first (poolsideai/pool#9), LM Studio a new one
   * on each (NousResearch/hermes-agent#106943), and a new call always comes with its name.
   */
  function toolTarget(delta: ToolCallDelta): TrackedBlock {
    const tools = tracked.filter((entry) => entry.block.kind === 'tool');
    const existing = callContinued(tools, delta);
    if (existing) return existing;
    const callId = delta.id ?? `${callIdPrefix}_${tracked.length}`;
    const block: StreamBlock = { position: tracked.length, kind: 'tool', callId, name: delta.name ?? '', arguments: '' };
    return append(block, delta.index ?? tools.length, delta.id);
  }

  /**
   * Gemini signs a call once, and a relay that re-chunks it may put the signature on any of its pieces
   * (ServiceNow/eva#206 read it from every chunk). A call whose start is still held is begun with it;
   * one begun already has it from its stop on (a Responses item's `.done`, the item Codex keeps).
   */
  function sign(entry: TrackedBlock, signature: string | null): void {
    if (signature === null || entry.signed || entry.block.kind !== 'tool' || entry.unsignedCallId === null) return;
    entry.signed = true;
    entry.block.callId = clientCallId(entry.unsignedCallId, signature, gatewayTag);
  }

  /**
   * A relay's blocks go with the thinking they came with. A signature alone makes a thinking block of
   * its own: omitted thinking, or a signature that came after the text moved on (OpenRouter's may),
   * which then carries the unsigned blocks of the thinking before it, whose mark carried none.
   */
  function addRelayThinking(pieces: RelayThinking, field: ReasoningField): void {
    const last = tracked.at(-1);
    const reasoningOpen = last?.block.kind === 'reasoning' && !last.closed;
    if (!reasoningOpen && signedRelayThinking(pieces) === null) return;
    const before = tracked.findLast((entry) => entry.block.kind === 'reasoning')?.block;
    const { block } = textTarget('reasoning', field);
    if (block.kind !== 'reasoning') return;
    const unsignedBefore = !reasoningOpen && before?.kind === 'reasoning' && signedRelayThinking(before.relayThinking) === null;
    const earlier = unsignedBefore ? before.relayThinking : block.relayThinking;
    block.relayThinking = joinedRelayThinking(earlier, pieces);
  }

  /**
   * A tool call starts with its name, which some gateways stream in pieces (toolCallName.ts): it is
   * whole once the call's arguments begin (one delta after it, where it came whole), or at the end.
   */
  function canStart(entry: TrackedBlock, ending: boolean): boolean {
    if (ending || entry.block.kind !== 'tool') return true;
    return entry.block.name !== '' && entry.heldPieces.length > 0;
  }

  /** Emits everything releasable: blocks in order, stopping at the first one still open. */
  function release(ending: boolean): BlockEvent[] {
    const events: BlockEvent[] = [];
    for (const entry of tracked) {
      if (entry.stopped) continue;
      if (!entry.started) {
        if (!canStart(entry, ending)) break;
        entry.started = true;
        events.push({ type: 'start', block: { ...entry.block } });
      }
      for (const piece of entry.heldPieces) {
        if (entry.block.kind !== 'tool') entry.block.text += piece;
        else entry.block.arguments += piece;
        events.push({ type: 'delta', block: { ...entry.block }, piece });
      }
      entry.heldPieces = [];
      if (ending) entry.closed = true;
      if (!entry.closed) break;
      entry.stopped = true;
      events.push({ type: 'stop', block: { ...entry.block } });
    }
    return events;
  }

  return {
    apply(reading) {
      if (reading.reasoningDelta !== null && reading.reasoningDelta !== '') {
        textTarget('reasoning', reading.reasoningField ?? 'reasoning_content').heldPieces.push(reading.reasoningDelta);
      }
      if (reading.relayThinking !== null) addRelayThinking(reading.relayThinking, reading.reasoningField ?? 'reasoning_content');
      if (reading.textDelta !== null && reading.textDelta !== '') textTarget('text').heldPieces.push(reading.textDelta);
      if (reading.refusalDelta !== null && reading.refusalDelta !== '') textTarget('refusal').heldPieces.push(reading.refusalDelta);
      for (const delta of reading.toolCallDeltas) {
        const entry = toolTarget(delta);
        // A started call's name went out whole: a later name is its repeat.
        if (entry.block.kind === 'tool' && !entry.started && delta.name !== null) {
          entry.block.name = joinedToolCallName(entry.block.name, delta.name);
        }
        sign(entry, delta.thoughtSignature);
        if (delta.argumentsPiece) entry.heldPieces.push(delta.argumentsPiece);
      }
      if (reading.finishReason !== null) finishReason = reading.finishReason;
      if (reading.usage !== null) usage = reading.usage;
      return release(false);
    },
    closeAll: () => release(true),
    finishReason: () => finishReason,
    usage: () => usage,
    hasToolCalls: () => tracked.some((entry) => entry.block.kind === 'tool'),
  };
}
