import type { Dialect } from './dialect.ts';
import { reasoningEffortLevelUnsupported, reasoningEffortUnsupported } from './gatewayErrors.ts';
import type { CapabilityRefusal, ModelCapabilities } from './modelCapabilities.ts';

/**
 * A model's answer to `reasoning_effort` it does not take, or a level of it the model does not have
 * (Dialect.unsupportedReasoningEffort), or null when it takes the request.
 */
export function reasoningEffortRefusal(
  dialect: Dialect,
  capabilities: ModelCapabilities,
  json: Record<string, unknown>,
): CapabilityRefusal | null {
  if (dialect.unsupportedReasoningEffort === 'ignored' || !('reasoning_effort' in json)) return null;
  const subject = String(json.model);
  if (!capabilities.reasoningEffort) return { status: 400, body: reasoningEffortUnsupported(), subject };
  const level = String(json.reasoning_effort);
  const levels = capabilities.reasoningEffortLevels;
  if (levels === null || levels.includes(level)) return null;
  return { status: 400, body: reasoningEffortLevelUnsupported(level, levels), subject };
}
