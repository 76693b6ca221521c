import { isRecord } from '../../core/isRecord.ts';
import { formatSseEvent } from '../sse.ts';

type Json = Record<string, unknown>;

/** What a whole completion's message holds that a stream's delta carries too; `tool_calls` gain the index deltas have. */
function deltaOf(message: Json): Json {
  const delta: Json = { ...message };
  if (Array.isArray(message.tool_calls)) {
    delta.tool_calls = message.tool_calls.map((call: unknown, index) => (isRecord(call) ? { index, ...call } : call));
  }
  return delta;
}

/**
 * A whole `chat.completion` as the chat stream a client asked for, for a gateway that answered a
 * streamed request whole: one chunk per choice holding its whole message as the delta, with its
 * finish_reason; the usage in a chunk of its own when the client asked for it (as OpenAI sends it);
 * then `[DONE]`. Null when the answer holds no choices (an error, or no chat completion at all).
 */
export function completionAsStream(completion: object, withUsage: boolean): string | null {
  if (!isRecord(completion) || !Array.isArray(completion.choices) || completion.choices.length === 0) return null;
  const { choices, usage, object: _object, ...head } = completion;
  const chunk = (fields: Json): string => formatSseEvent({ data: JSON.stringify({ ...head, object: 'chat.completion.chunk', ...fields }) });
  let stream = '';
  for (const [position, choice] of choices.entries()) {
    if (!isRecord(choice)) continue;
    const { message, finish_reason: finishReason, ...rest } = choice;
    const choiceChunk = {
      index: position,
      ...rest,
      delta: isRecord(message) ? deltaOf(message) : {},
      finish_reason: finishReason ?? 'stop',
    };
    stream += chunk({ choices: [choiceChunk] });
  }
  if (withUsage && isRecord(usage)) stream += chunk({ choices: [], usage });
  return `${stream}${formatSseEvent({ data: '[DONE]' })}`;
}
