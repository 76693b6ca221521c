import type { GatewayKeyUse } from '../../contracts/keyPool.ts';
import type { FallbackHop } from '../../contracts/log.ts';
import { describeFallback } from '../../contracts/profile.ts';

/**
 * The way a request took, as one line of text: a CSV cell, a line of `airlock request`. Pure. The
 * steps read left to right, as they were tried.
 */

const STEP_SEPARATOR = ' > ';

/** `main/gpt-4o-mini 503 upstream_error`, `backup/qwen-plus 200`, `backup skipped (budget ...)`. */
export function hopText(hop: FallbackHop): string {
  const where = describeFallback({ profileId: hop.profileId, ...(hop.model === null ? {} : { model: hop.model }) });
  if (hop.note !== undefined) return `${where} skipped (${hop.note})`;
  const outcome = [hop.status ?? 'no answer', hop.errorClass].filter((part) => part !== null).join(' ');
  return `${where} ${outcome}`;
}

export function fallbackChainText(chain: readonly FallbackHop[]): string {
  return chain.map(hopText).join(STEP_SEPARATOR);
}

/** `key 1 (main) > spare (8a8651)`: each attempt's key by label and id, never the key itself. */
export function gatewayKeysText(keys: readonly GatewayKeyUse[]): string {
  return keys.map((use) => `${use.label} (${use.keyId})`).join(STEP_SEPARATOR);
}
