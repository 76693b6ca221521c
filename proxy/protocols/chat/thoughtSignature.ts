import { isRecord } from '../../core/isRecord.ts';
import type { ChatMessage } from './chatMessages.ts';

/**
 * Gemini's OpenAI-compatible endpoint signs a turn's function calls: the call carries
 * `extra_content.google.thought_signature`, and a later request that sends the call back without it
 * is refused with a 400 (Google's "Thought signatures" guide; relays that dropped it broke every
 * second tool turn: continuedev/continue#8865, strands-agents/sdk-python#1212). Anthropic Messages
 * and Responses have no field for it, but their clients send a call's id back unchanged, with the
 * call and with its result: a translated call carries the signature in its id, and the chat request
 * gets it back on the call it came with. A call that came without one keeps its id as it was. The
 * signed form names the gateway that signed the call (gatewayTagOf), and the signature goes back to
 * that gateway only: a fallback step's never signed it, and a strict one refuses the member (Mistral's
 * 422 `extra_forbidden`; "Extra inputs are not permitted", BerriAI/litellm#15758).
 */
export const SIGNED_ID_SEPARATOR = '__sig_';

/**
 * What the base64url after the separator holds before `<gateway tag>:<signature>`. A gateway's own id
 * may hold the separator too (ids are the gateway's to choose): it is split only where what follows
 * decodes to this and encodes back the same, which no id Airlock did not sign does by chance. A form
 * made before it named the gateway (`airlock-sig:<signature>`: Gemini's are base64, without `:`) names
 * none, so its signature goes to none: those builds were never released, and the gateway cannot be told.
 */
const SIGNED_FORM_PREFIX = 'airlock-sig:';

export interface ChatCallIdentity {
  id: string;
  extra_content?: { google: { thought_signature: string } };
}

/** The signature a chat tool call (whole, or a stream's piece) carries, or null. */
export function thoughtSignatureOf(call: unknown): string | null {
  if (!isRecord(call) || !isRecord(call.extra_content) || !isRecord(call.extra_content.google)) return null;
  const signature = call.extra_content.google.thought_signature;
  return typeof signature === 'string' && signature !== '' ? signature : null;
}

/**
 * The id a translated client is given for a chat call: its own, with the signature and the gateway
 * `gatewayTag` names (the one that signed it) folded in when it has one (base64url: ids allow letters,
 * digits, `_` and `-`).
 */
export function clientCallId(chatId: string, signature: string | null, gatewayTag: string): string {
  if (signature === null) return chatId;
  const signedForm = `${SIGNED_FORM_PREFIX}${gatewayTag}:${signature}`;
  return `${chatId}${SIGNED_ID_SEPARATOR}${Buffer.from(signedForm, 'utf8').toString('base64url')}`;
}

/**
 * A client's call id as the chat gateway first gave it, for the gateway `gatewayTag` names: with the
 * signature that came with the call when that gateway signed it, else the plain call.
 */
export function chatCallIdentity(clientId: string, gatewayTag: string): ChatCallIdentity {
  const signed = signedCallId(clientId);
  if (signed === null) return { id: clientId };
  if (signed.gatewayTag !== gatewayTag) return { id: signed.chatId };
  return { id: signed.chatId, extra_content: { google: { thought_signature: signed.signature } } };
}

/** The chat id a tool result answers: the call's own, without the signature. */
export function chatCallId(clientId: string): string {
  return signedCallId(clientId)?.chatId ?? clientId;
}

/**
 * The gateway's id, the signing gateway's tag (null in a form made before the tag) and the signature of
 * an id Airlock signed, or null. Each separator is tried from the first: the gateway's id may hold one,
 * and base64url's letters may spell one inside the signature's.
 */
function signedCallId(clientId: string): { chatId: string; gatewayTag: string | null; signature: string } | null {
  for (let at = clientId.indexOf(SIGNED_ID_SEPARATOR); at >= 0; at = clientId.indexOf(SIGNED_ID_SEPARATOR, at + 1)) {
    const encoded = clientId.slice(at + SIGNED_ID_SEPARATOR.length);
    const decoded = Buffer.from(encoded, 'base64url');
    if (decoded.toString('base64url') !== encoded) continue;
    const signedForm = decoded.toString('utf8');
    if (signedForm.length > SIGNED_FORM_PREFIX.length && signedForm.startsWith(SIGNED_FORM_PREFIX)) {
      const tagged = signedForm.slice(SIGNED_FORM_PREFIX.length);
      const tagEnd = tagged.indexOf(':');
      const chatId = clientId.slice(0, at);
      if (tagEnd < 0) return { chatId, gatewayTag: null, signature: tagged };
      return { chatId, gatewayTag: tagged.slice(0, tagEnd), signature: tagged.slice(tagEnd + 1) };
    }
  }
  return null;
}

/**
 * Keeps signatures on the current turn's calls only (since the last user message that does not
 * follow tool results: those are the results' images or words added to them): Gemini checks no other (Google's guide), and after a switch to another model,
 * one that refuses unknown members (Mistral's 422 `extra_forbidden`, Cerebras) would refuse every
 * turn while an older Gemini call stayed in the history.
 */
export function signaturesOfCurrentTurnOnly(messages: ChatMessage[]): void {
  const turnStart = messages.findLastIndex((message, index) => message.role === 'user' && messages[index - 1]?.role !== 'tool');
  for (let index = 0; index < turnStart; index += 1) {
    const message = messages[index];
    if (message?.role !== 'assistant') continue;
    // A relay's thinking blocks likewise (relayThinking.ts): Claude needs those of the current turn's tool calls only.
    delete message.thinking_blocks;
    delete message.reasoning_details;
    if (message.tool_calls === undefined) continue;
    if (!message.tool_calls.some((call) => call.extra_content !== undefined)) continue;
    message.tool_calls = message.tool_calls.map(({ extra_content: _signature, ...call }) => call);
  }
}
