import type { ErrorClass } from '../contracts/errors.ts';

/** What a gateway said of its failure: its words and its code. */
export interface GatewaySaid {
  upstreamMessage?: string;
  errorCode?: string;
}

/**
 * A prompt over the model's context, as gateways word their refusal: OpenAI's and vLLM's "maximum
 * context length is M tokens. However, you requested N tokens" (OpenRouter's "about N"), LiteLLM's
 * ContextWindowExceededError around the same words, OpenAI's `context_length_exceeded`, Anthropic's
 * "prompt is too long" from a relay in front of Claude. Each client knows an overflow only by its
 * own API's sign of it (anthropic/promptTooLong.ts, responses/errors.ts).
 */
const OVERFLOW =
  /context_length_exceeded|ContextWindowExceeded|maximum context length|context window|input is too long|prompt is too long/i;

/** Whether the gateway's code or words name a prompt over the model's context, whatever the status it came with. */
export function namesContextOverflow(said: GatewaySaid): boolean {
  return OVERFLOW.test(`${said.errorCode ?? ''} ${said.upstreamMessage ?? ''}`);
}

export function saysContextOverflow(errorClass: ErrorClass, said: GatewaySaid): boolean {
  return errorClass === 'bad_request' && namesContextOverflow(said);
}
