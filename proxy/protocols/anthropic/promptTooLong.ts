import type { ErrorClass } from '../../contracts/errors.ts';
import { saysContextOverflow, type GatewaySaid } from '../contextOverflow.ts';

/**
 * Claude Code knows a context overflow only by Anthropic's own words: an error message holding
 * "prompt is too long", from which it reads "N tokens > M maximum" (the wording of Anthropic's 400,
 * anthropics/claude-code#820), and then says so and offers to compact instead of showing a raw
 * API error. Gateways in front of other models say it their way (contextOverflow.ts); OpenAI's and
 * vLLM's words give both numbers.
 */
const REQUESTED_OVER_LIMIT = /maximum context length is (\d+) tokens?\.?\s*However,? you requested (?:about )?(\d+) tokens?/i;
const ANTHROPIC_WORDS = /prompt is too long/i;

/** Anthropic's words for a gateway's context overflow, to lead the message with; null when it is none (or already says so). */
export function promptTooLongWords(errorClass: ErrorClass, detail: GatewaySaid): string | null {
  if (!saysContextOverflow(errorClass, detail)) return null;
  const said = `${detail.errorCode ?? ''} ${detail.upstreamMessage ?? ''}`;
  if (ANTHROPIC_WORDS.test(said)) return null;
  const numbers = REQUESTED_OVER_LIMIT.exec(said);
  return numbers ? `prompt is too long: ${numbers[2]} tokens > ${numbers[1]} maximum.` : 'prompt is too long.';
}
