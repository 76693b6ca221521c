import type { Dialect } from './dialect.ts';
import { reasoningEffortUnsupported } from './gatewayErrors.ts';
import type { CapabilityRefusal, ModelCapabilities } from './modelCapabilities.ts';

/** A model's answer to `reasoning_effort` it does not take (Dialect.unsupportedReasoningEffort), or null when it takes the request. */
export function reasoningEffortRefusal(
  dialect: Dialect,
  capabilities: ModelCapabilities,
  json: Record<string, unknown>,
): CapabilityRefusal | null {
  if (capabilities.reasoningEffort || dialect.unsupportedReasoningEffort === 'ignored' || !('reasoning_effort' in json)) return null;
  return { status: 400, body: reasoningEffortUnsupported(), subject: String(json.model) };
}
