import { isRecord } from '../../core/isRecord.ts';
import { type ObserverOptions, type StreamAssembler, UNREPORTED } from '../adapter.ts';
import { eventJson } from '../sse.ts';
import { toolArgumentsText } from './chatShapes.ts';
import { finishReasonOf } from './finishReason.ts';
import { ChatStreamObserver } from './observer.ts';
import { chatThinkingOf, contentOf } from './contentParts.ts';
import { isChatStreamEnd } from './streamEnd.ts';
import { joinedRelayThinking, relayThinkingOf, type RelayThinking } from './relayThinking.ts';
import { callContinued, joinedToolCallName, type PiecedCall } from './toolCallName.ts';

type Json = Record<string, unknown>;

interface AssembledCall extends PiecedCall {
  chatId: string | null;
  name: string;
  arguments: string;
  /** Gemini's thought signature and what else rides beside it (thoughtSignature.ts), as the call's first piece with it had it. */
  extraContent: unknown;
}

interface AssembledChoice {
  content: string | null;
  /** Thinking, under the field it came in (`reasoning_content` or `reasoning`). */
  thinking: Map<string, string>;
  /** A relay's thinking blocks, their pieces joined (relayThinking.ts). */
  relayThinking: RelayThinking | null;
  refusal: string | null;
  calls: AssembledCall[];
  finishReason: string | null;
  stopReason: unknown;
}

/** A piece of text added to what came before; absent pieces leave it as it was. */
const joined = (before: string | null, piece: unknown): string | null => (typeof piece === 'string' ? (before ?? '') + piece : before);

/**
 * A chat stream put together into the one `chat.completion` it amounts to, for a client that asked
 * for a whole answer from a gateway that streamed anyway. Each choice's text, thinking (a relay's
 * signed blocks too), refusal and tool calls are joined by index as the OpenAI SDKs' stream helpers join them, a
 * new id at a taken index beginning a call of its own, as the translated streams read it (callContinued); a call's id
 * comes from its first piece that has one (DashScope and GLM repeat it as "" on later pieces), its name
 * from its pieces, a repeat of it not joined again (joinedToolCallName).
 */
export class ChatCompletionAssembler {
  readonly #head: Json = {};
  readonly #choices = new Map<number, AssembledChoice>();
  #usage: unknown = null;

  add(chunk: Json): void {
    for (const field of ['id', 'created', 'model', 'system_fingerprint'] as const) {
      if (this.#head[field] === undefined && chunk[field] !== undefined && chunk[field] !== '') this.#head[field] = chunk[field];
    }
    if (isRecord(chunk.usage)) this.#usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) return;
    for (const [position, choice] of chunk.choices.entries()) {
      if (!isRecord(choice)) continue;
      this.#addChoice(typeof choice.index === 'number' ? choice.index : position, choice);
    }
  }

  #addChoice(index: number, choice: Json): void {
    const assembled = this.#choices.get(index) ?? {
      content: null,
      thinking: new Map<string, string>(),
      relayThinking: null,
      refusal: null,
      calls: [],
      finishReason: null,
      stopReason: undefined,
    };
    this.#choices.set(index, assembled);
    const delta = isRecord(choice.delta) ? choice.delta : {};
    // Content parts (Mistral's reasoning models) are text and thinking, as a whole answer's are read.
    assembled.content = joined(assembled.content, contentOf(delta.content).text);
    assembled.refusal = joined(assembled.refusal, delta.refusal);
    const thinking = chatThinkingOf(delta);
    if (thinking !== null) assembled.thinking.set(thinking.field, (assembled.thinking.get(thinking.field) ?? '') + thinking.text);
    const relayThinking = relayThinkingOf(delta);
    if (relayThinking !== null) assembled.relayThinking = joinedRelayThinking(assembled.relayThinking, relayThinking);
    if (Array.isArray(delta.tool_calls)) {
      for (const [position, call] of delta.tool_calls.entries()) if (isRecord(call)) addCallPiece(assembled.calls, position, call);
    }
    assembled.finishReason = finishReasonOf(choice.finish_reason) ?? assembled.finishReason;
    if (choice.stop_reason !== undefined) assembled.stopReason = choice.stop_reason;
  }

  completion(): Json {
    const choices = [...this.#choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, choice]) => ({
        index,
        message: messageOf(choice),
        finish_reason: choice.finishReason,
        ...(choice.stopReason === undefined ? {} : { stop_reason: choice.stopReason }),
        logprobs: null,
      }));
    return { ...this.#head, object: 'chat.completion', choices, ...(this.#usage === null ? {} : { usage: this.#usage }) };
  }
}

function addCallPiece(calls: AssembledCall[], position: number, piece: Json): void {
  const fn = isRecord(piece.function) ? piece.function : {};
  const id = typeof piece.id === 'string' && piece.id !== '' ? piece.id : null;
  const name = typeof fn.name === 'string' ? fn.name : null;
  const chatIndex = typeof piece.index === 'number' ? piece.index : position;
  let call = callContinued(calls, { index: chatIndex, id, name });
  if (call === undefined) {
    call = { chatIndex, chatId: id, name: '', arguments: '', extraContent: undefined };
    calls.push(call);
  }
  if (call.chatId === null && id !== null) call.chatId = id;
  if (name !== null) call.name = joinedToolCallName(call.name, name);
  if (call.extraContent === undefined && piece.extra_content !== undefined) call.extraContent = piece.extra_content;
  call.arguments += toolArgumentsText(fn.arguments) ?? '';
}

function messageOf(choice: AssembledChoice): Json {
  // In index order; calls at one index in the order they began (the sort is stable).
  const calls = [...choice.calls]
    .sort((a, b) => (a.chatIndex ?? 0) - (b.chatIndex ?? 0))
    .map((call) => ({
      id: call.chatId ?? '',
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
      ...(call.extraContent === undefined ? {} : { extra_content: call.extraContent }),
    }));
  return {
    role: 'assistant',
    content: choice.content,
    ...Object.fromEntries(choice.thinking),
    ...(choice.relayThinking === null ? {} : { [choice.relayThinking.field]: choice.relayThinking.blocks }),
    ...(choice.refusal === null ? {} : { refusal: choice.refusal }),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
  };
}

/** A chat stream put together as the completion it amounts to; nothing after `[DONE]` counts, as for the SDKs. */
export function completionOfStream(options: ObserverOptions): StreamAssembler {
  // The completion's own usage and model are read from it afterwards, as any whole answer's are.
  const observer = new ChatStreamObserver(UNREPORTED, options);
  const assembler = new ChatCompletionAssembler();
  let ended = false;
  return {
    add(event) {
      if (ended) return;
      observer.observe(event);
      ended = isChatStreamEnd(event);
      const chunk = ended ? null : eventJson(event);
      if (chunk !== null) assembler.add(chunk);
    },
    result() {
      const answer = assembler.completion();
      const answered = Array.isArray(answer.choices) && answer.choices.length > 0;
      return { answer, whole: observer.complete, answered, error: observer.upstreamError };
    },
  };
}
