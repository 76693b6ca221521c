import { isRecord } from '../../core/isRecord.ts';
import type { DeclaredError, StreamObserver, StreamSink } from '../adapter.ts';
import { eventJson, eventType, type SseEvent } from '../sse.ts';
import { responsesErrorEventOf } from './declaredError.ts';
import { responsesUsageOf } from './usage.ts';

/** The final events of a Responses stream; completed and incomplete are whole answers, failed is an error. */
const WHOLE_TYPES = new Set(['response.completed', 'response.incomplete']);
const OTHER_OUTPUT_TYPES = new Set([
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
  'response.refusal.delta',
]);

/** Output items that call a tool by a name the model wrote. */
const TOOL_CALL_TYPES: ReadonlySet<unknown> = new Set(['function_call', 'custom_tool_call']);

/** Responses from a gateway that speaks it: text deltas, and the model and usage of the final response event. */
export class ResponsesStreamObserver implements StreamObserver {
  complete = false;
  readonly wholeAtCleanEnd = false;
  readonly awaiting = 'response.completed or response.incomplete';
  upstreamError: DeclaredError | null = null;
  private readonly sink: StreamSink;

  constructor(sink: StreamSink) {
    this.sink = sink;
  }

  observe(event: SseEvent): boolean {
    const json = eventJson(event);
    if (!json) return true;
    const type = eventType(event, json);
    if (type === 'response.output_text.delta' && typeof json.delta === 'string') this.sink.onDelta(json.delta);
    // Reasoning, a refusal and a tool call's arguments or input are billed output too: a stream without usage is estimated with them.
    else if (OTHER_OUTPUT_TYPES.has(type) && typeof json.delta === 'string') this.sink.onOtherOutput?.(json.delta);
    // A tool search's arguments come with no delta of their own, whole in its item (toolSearch.ts): counted once, when done.
    else if (type === 'response.output_item.done') this.reportToolSearch(json.item);
    // A function or custom tool call's name, which the model wrote, comes only in its item; its input follows in deltas.
    else if (type === 'response.output_item.added') this.reportToolName(json.item);
    if (type === 'error' || type === 'response.failed') this.upstreamError = responsesErrorEventOf(json, type);
    if (WHOLE_TYPES.has(type) || type === 'response.failed') {
      this.complete = WHOLE_TYPES.has(type);
      const response = json.response as { model?: unknown; usage?: unknown } | undefined;
      if (typeof response?.model === 'string') this.sink.onModel(response.model);
      const usage = responsesUsageOf(response?.usage);
      if (usage) this.sink.onUsage(usage);
    }
    return true;
  }

  private reportToolName(item: unknown): void {
    if (!isRecord(item) || !TOOL_CALL_TYPES.has(item.type) || typeof item.name !== 'string' || item.name === '') return;
    this.sink.onOtherOutput?.(item.name);
  }

  private reportToolSearch(item: unknown): void {
    if (!isRecord(item) || item.type !== 'tool_search_call' || item.arguments === undefined) return;
    if (typeof item.arguments === 'string') {
      this.sink.onOtherOutput?.(item.arguments);
      return;
    }
    let written: string;
    try {
      written = JSON.stringify(item.arguments);
    } catch {
      // Nested past the stack (JSON.parse took it, JSON.stringify recurses): the estimate goes without it, the stream on.
      return;
    }
    this.sink.onOtherOutput?.(written);
  }
}
