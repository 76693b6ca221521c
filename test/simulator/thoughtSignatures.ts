import type { Dialect } from './dialect.ts';
import { errorBody } from './errors.ts';
import type { CapabilityRefusal } from './modelCapabilities.ts';

/**
 * Gemini's thought signatures (Dialect.signsToolCalls), as Google's "Thought signatures" guide
 * (ai.google.dev/gemini-api/docs/thought-signatures) and its OpenAI-compatibility page describe
 * them: the first function call of each model step carries an opaque signature in
 * `extra_content.google.thought_signature`, and every step of the current turn (since the last
 * user message) must send it back on that call, or the request is refused with a 400. Relays
 * that dropped it broke every second tool turn (continuedev/continue#8865,
 * strands-agents/sdk-python#1212).
 */

/** The signature the simulator gives a call: standard base64 with `+`, `/` and padding, as Gemini's are. */
export function thoughtSignatureFor(callId: string): string {
  return `Cs4B+/${Buffer.from(`signed:${callId}`).toString('base64')}`;
}

type SentMessage = { role?: unknown; tool_calls?: unknown } | null;
type SentCall = { id?: unknown; extra_content?: { google?: { thought_signature?: unknown } } } | null;

/** A request whose current turn sends back a call without its signature, or with another one: the 400 Gemini answers. Null otherwise. */
export function thoughtSignatureRefusal(dialect: Dialect, messages: unknown): CapabilityRefusal | null {
  if (!dialect.signsToolCalls || !Array.isArray(messages)) return null;
  const lastUser = (messages as SentMessage[]).findLastIndex((message) => message?.role === 'user');
  for (const [index, message] of (messages as SentMessage[]).entries()) {
    if (index < lastUser || message?.role !== 'assistant' || !Array.isArray(message.tool_calls)) continue;
    const first = message.tool_calls[0] as SentCall | undefined;
    if (first === undefined || first === null) continue;
    const sent = first.extra_content?.google?.thought_signature;
    if (sent === thoughtSignatureFor(String(first.id))) continue;
    const said = `messages[${index}]: the function call ${String(first.id)} is sent back without the thought_signature it was given`;
    return { status: 400, body: errorBody(said, 'invalid_request_error', 'invalid_argument'), subject: '' };
  }
  return null;
}
