import { createParser } from 'eventsource-parser';
import type { ConversationItem } from '../../contracts/agentSessions.ts';
import { isRecord } from '../../core/isRecord.ts';
import { callContinued, joinedToolCallName, type PiecedCall } from '../../protocols/chat/toolCallName.ts';
import { answerItemsOfJson, responsesToolCall, textItem, toolCallItem, type ToolCallText } from './conversationItems.ts';

/**
 * A streamed answer, rebuilt from the raw events the log kept, as items: the text, reasoning and
 * tool calls of a chat, Messages or Responses stream. Pure. Each protocol's events are told apart
 * by their data (a translated stream logs the gateway's chat events).
 */

/** Accumulates the events of one stream in the order they came. */
class StreamAssembly {
  private text = '';
  private reasoning = '';
  private readonly calls = new Map<string, ToolCallText>();
  /** A chat stream's calls as the gateway numbered them, each with its text among `calls`. */
  private readonly chatCalls: Array<PiecedCall & { text: ToolCallText }> = [];
  /** Responses' final event holds the whole answer: when it came, it is the answer. */
  completed: ConversationItem[] | null = null;

  add(data: Record<string, unknown>): void {
    if (Array.isArray(data.choices)) this.addChat(data.choices);
    else if (typeof data.type === 'string' && data.type.startsWith('response.')) this.addResponses(data);
    else if (typeof data.type === 'string') this.addMessages(data);
  }

  private call(key: string, name: string, callId: string | null): ToolCallText {
    let call = this.calls.get(key);
    if (call === undefined) {
      call = { name, callId, argumentsText: '' };
      this.calls.set(key, call);
    }
    return call;
  }

  private addChat(choices: unknown[]): void {
    const delta = isRecord(choices[0]) && isRecord(choices[0].delta) ? choices[0].delta : null;
    if (delta === null) return;
    if (typeof delta.content === 'string') this.text += delta.content;
    for (const field of ['reasoning_content', 'reasoning'] as const) if (typeof delta[field] === 'string') this.reasoning += delta[field];
    if (!Array.isArray(delta.tool_calls)) return;
    for (const part of delta.tool_calls) {
      if (!isRecord(part)) continue;
      const fn = isRecord(part.function) ? part.function : {};
      const id = typeof part.id === 'string' && part.id !== '' ? part.id : null;
      const name = typeof fn.name === 'string' ? fn.name : null;
      const chatIndex = typeof part.index === 'number' ? part.index : 0;
      // Some gateways number every call 0, each with its own id (callContinued).
      let call = callContinued(this.chatCalls, { index: chatIndex, id, name });
      if (call === undefined) {
        call = { chatIndex, chatId: id, text: this.call(`chat:${this.chatCalls.length}`, '', id) };
        this.chatCalls.push(call);
      }
      // Some gateways stream a name in pieces, some send it whole on every delta (toolCallName.ts).
      if (name !== null) call.text.name = joinedToolCallName(call.text.name, name);
      if (typeof fn.arguments === 'string') call.text.argumentsText += fn.arguments;
    }
  }

  private addMessages(data: Record<string, unknown>): void {
    const key = `messages:${String(data.index ?? 0)}`;
    if (data.type === 'content_block_start' && isRecord(data.content_block) && data.content_block.type === 'tool_use') {
      const block = data.content_block;
      this.call(key, typeof block.name === 'string' ? block.name : '?', typeof block.id === 'string' ? block.id : null);
    } else if (data.type === 'content_block_delta' && isRecord(data.delta)) {
      const delta = data.delta;
      if (delta.type === 'text_delta' && typeof delta.text === 'string') this.text += delta.text;
      else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') this.reasoning += delta.thinking;
      else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
        const call = this.calls.get(key);
        if (call) call.argumentsText += delta.partial_json;
      }
    }
  }

  private addResponses(data: Record<string, unknown>): void {
    if ((data.type === 'response.completed' || data.type === 'response.incomplete') && isRecord(data.response)) {
      this.completed = answerItemsOfJson(data.response);
      return;
    }
    if (data.type === 'response.output_text.delta' && typeof data.delta === 'string') this.text += data.delta;
    else if (data.type === 'response.reasoning_summary_text.delta' && typeof data.delta === 'string') this.reasoning += data.delta;
    else if (data.type === 'response.output_item.done' && isRecord(data.item)) {
      const called = responsesToolCall(data.item);
      if (called !== null) {
        const call = this.call(`responses:${String(data.output_index ?? this.calls.size)}`, called.name, called.callId);
        call.argumentsText = called.argumentsText;
      }
    }
  }

  items(): ConversationItem[] {
    if (this.completed !== null) return this.completed;
    const items: ConversationItem[] = [];
    if (this.reasoning !== '') items.push(textItem('reasoning', this.reasoning));
    if (this.text !== '') items.push(textItem('assistant', this.text));
    for (const call of this.calls.values()) items.push(toolCallItem(call.name === '' ? '?' : call.name, call.callId, call.argumentsText));
    return items;
  }
}

/** The answer a stream carried, from its raw SSE text; null when no event of a known shape came. */
export function answerItemsOfStream(rawEvents: string): ConversationItem[] | null {
  const assembly = new StreamAssembly();
  let seen = false;
  const parser = createParser({
    onEvent(event) {
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        return; // `[DONE]` and keep-alives
      }
      if (!isRecord(data)) return;
      seen = true;
      assembly.add(data);
    },
  });
  // Lines may end in CR alone (the SSE spec allows it): the parser would hold the last one and scan to the text's end once a line.
  parser.feed(rawEvents.includes('\r') ? rawEvents.replace(/\r\n?/g, '\n') : rawEvents);
  parser.reset({ consume: true });
  return seen ? assembly.items() : null;
}
