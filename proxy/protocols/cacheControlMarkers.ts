import type { PromptCacheWrites } from '../contracts/usage.ts';

const MARKER = Buffer.from('"cache_control"');
const ONE_HOUR = Buffer.from('"1h"');
const CLOSE_BRACE = 0x7d;
/** How far past a marker its object is looked at for a ttl: `{"type": "ephemeral", "ttl": "1h"}` with room for spaces. */
const MARKER_OBJECT_MAX_BYTES = 256;

/**
 * The prompt-cache writes a JSON body asks for, found from its bytes without parsing it (a long
 * agent session is not parsed on the loop): Anthropic writes a cache only where `cache_control`
 * marks it, for 5 minutes unless its `ttl` is `"1h"` (platform.claude.com/docs/en/build-with-claude/prompt-caching;
 * OpenAI's and Gemini's automatic caching bill writes at the input price: docs.opper.ai/build/gateway/prompt-caching). Text that only mentions the
 * marker in quotes does not: inside a JSON string its quotes are escaped. A key itself written
 * with escapes (`cache\\u005fcontrol`) is not seen; no client writes one.
 */
export function promptCacheWritesIn(body: Buffer): PromptCacheWrites {
  let writes: PromptCacheWrites = 'none';
  for (let at = body.indexOf(MARKER); at >= 0; at = body.indexOf(MARKER, at + MARKER.length)) {
    writes = '5m';
    const valueFrom = at + MARKER.length;
    const closeAt = body.indexOf(CLOSE_BRACE, valueFrom);
    const valueTo = closeAt < 0 ? body.length : Math.min(closeAt, valueFrom + MARKER_OBJECT_MAX_BYTES);
    if (body.subarray(valueFrom, valueTo).includes(ONE_HOUR)) return '1h';
  }
  return writes;
}
