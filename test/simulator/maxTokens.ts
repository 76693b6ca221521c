import type { Dialect } from './dialect.ts';
import { maxTokensUnsupported, temperatureUnsupported } from './gatewayErrors.ts';
import type { CapabilityRefusal, ModelCapabilities } from './modelCapabilities.ts';

/**
 * A model's answer to chat's `max_tokens` when it takes only `max_completion_tokens`
 * (Dialect.unsupportedMaxTokens), or null when it takes the request.
 */
export function maxTokensRefusal(
  dialect: Dialect,
  capabilities: ModelCapabilities,
  json: Record<string, unknown>,
): CapabilityRefusal | null {
  if (capabilities.maxTokens || dialect.unsupportedMaxTokens === 'mapped' || !('max_tokens' in json)) return null;
  return { status: 400, body: maxTokensUnsupported(), subject: String(json.model) };
}

/**
 * The same models' answer to a `temperature` other than the default 1, or null: refused as OpenAI
 * does, unless the dialect maps the request for them (LiteLLM drops what they do not take).
 */
export function temperatureRefusal(
  dialect: Dialect,
  capabilities: ModelCapabilities,
  json: Record<string, unknown>,
): CapabilityRefusal | null {
  if (capabilities.maxTokens || dialect.unsupportedMaxTokens === 'mapped' || json.temperature === undefined || json.temperature === 1)
    return null;
  return { status: 400, body: temperatureUnsupported(json.temperature), subject: String(json.model) };
}
