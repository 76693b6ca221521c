import { hash } from 'node:crypto';

/**
 * A chat gateway's thinking comes as `reasoning_content` (DeepSeek, Qwen, GLM, Kimi, older vLLM)
 * or as `reasoning` (OpenRouter, Cerebras, newer vLLM), and gateways disagree on taking it back:
 * DeepSeek's thinking mode refuses a tool-call turn without its `reasoning_content` ("Missing
 * reasoning_content", cherry-studio #11751), while Cerebras (kilocode #10375) and LiteLLM in front
 * of Bedrock (pi #5477) refuse the field. So thinking goes back only to the field it came in, and
 * only as `reasoning_content`, on a tool-call turn: where DeepSeek asks for it.
 *
 * The path is stateless, so the thinking block or reasoning item a client gets says where its
 * thinking came from, in the one opaque field the client hands back unchanged: a thinking block's
 * `signature`, a reasoning item's `encrypted_content`. Every one Airlock makes is marked, so a
 * session that later goes to a gateway natively can leave them out (nativeRequest.ts in each
 * protocol): no native API can verify them. Each names the gateway that sent the thinking
 * (gatewayTagOf): a fallback step's gateway never sent it, and a strict one refuses a member it does not
 * know ("Extra inputs are not permitted", BerriAI/litellm#15758), so it goes back only where it came from.
 */
export type ReasoningField = 'reasoning_content' | 'reasoning';

/** The field a chat delta or message carries its thinking in, `reasoning_content` first; null when it has none. */
export function thinkingFieldOf(fields: { reasoning_content?: unknown; reasoning?: unknown } | null | undefined): ReasoningField | null {
  if (typeof fields?.reasoning_content === 'string') return 'reasoning_content';
  return typeof fields?.reasoning === 'string' ? 'reasoning' : null;
}

/** What every mark starts with, and what a native request is searched for before it is read (nativeRequest.ts). */
export const AIRLOCK_MARK_PREFIX = 'airlock:';

/**
 * The gateway a mark names: a short digest of its base URL (the URL itself stays out of the client's
 * hands). Two profiles on one gateway share it, as they share what the gateway can verify.
 */
export function gatewayTagOf(baseUrl: string): string {
  return hash('sha256', baseUrl, 'base64url').slice(0, 12);
}

/**
 * The mark for thinking that came in `field` from the gateway `gatewayTag` names: `airlock:reasoning_content:<tag>`.
 * A mark made before marks named their gateway (`airlock:reasoning_content`) names none, so its thinking goes to none.
 */
export function reasoningMark(field: ReasoningField, gatewayTag: string): string {
  return `${AIRLOCK_MARK_PREFIX}${field}:${gatewayTag}`;
}

/** Whether thinking a client handed back with this mark goes to the gateway `gatewayTag` names. */
export function isReturnableReasoning(mark: unknown, gatewayTag: string): boolean {
  return mark === reasoningMark('reasoning_content', gatewayTag);
}

/** Whether an opaque field holds Airlock's mark: thinking Airlock made from a chat gateway's. */
export function isAirlockMark(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(AIRLOCK_MARK_PREFIX);
}

/** A tool-call turn's `reasoning_content`: what it had, then the thinking handed back since. */
export function joinedReasoning(earlier: string | undefined, thoughts: readonly string[]): string {
  return [...(earlier === undefined ? [] : [earlier]), ...thoughts].join('\n\n');
}
