import type { Dialect } from './dialect.ts';
import { errorBody } from './errors.ts';
import type { CapabilityRefusal, ModelCapabilities } from './modelCapabilities.ts';

type SentMessage = { role?: unknown; tool_calls?: unknown; reasoning_content?: unknown } | null;

/** A reasoning model's answer to the thinking it is sent back (Dialect.returnedReasoning), or null when it takes the request. */
export function returnedReasoningRefusal(dialect: Dialect, capabilities: ModelCapabilities, messages: unknown): CapabilityRefusal | null {
  if (!capabilities.reasoning || dialect.returnedReasoning === 'ignored' || !Array.isArray(messages)) return null;
  for (const [index, message] of (messages as SentMessage[]).entries()) {
    const hasReasoning = message !== null && 'reasoning_content' in message;
    if (dialect.returnedReasoning === 'refused' && hasReasoning) {
      const field = `messages.${index}.${String(message?.role)}.reasoning_content`;
      const body = errorBody(
        `${field}: property '${field}' is unsupported`,
        'invalid_request_error',
        'wrong_api_format',
        'validation_error',
      );
      return { status: 400, body, subject: '' };
    }
    const toolCallTurn = message?.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
    if (dialect.returnedReasoning === 'requiredOnToolCalls' && toolCallTurn && typeof message?.reasoning_content !== 'string') {
      const said = `Missing \`reasoning_content\` field in the assistant message at message index ${index}.`;
      return { status: 400, body: errorBody(said, 'invalid_request_error', 'invalid_request_error'), subject: '' };
    }
  }
  return null;
}
