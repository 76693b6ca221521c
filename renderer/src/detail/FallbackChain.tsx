import type { FallbackHop } from '../../../proxy/contracts/log.ts';
import { describeFallback } from '../../../proxy/contracts/profile.ts';

/** A step as one line: `profile/model: 503 upstream_error`, `…: answered 200`, or `…: skipped (why)`. */
export function describeHop(hop: FallbackHop): string {
  const where = describeFallback({ profileId: hop.profileId, ...(hop.model === null ? {} : { model: hop.model }) });
  if (hop.note !== undefined) return `${where}: skipped (${hop.note})`;
  if (hop.errorClass === null) return `${where}: answered${hop.status === null ? '' : ` ${hop.status}`}`;
  return `${where}: ${hop.status ?? 'no answer'} ${hop.errorClass}`;
}

/** The way a request took when it fell back, in order: what failed, what was skipped, what answered. */
export function FallbackChain({ chain }: { chain: readonly FallbackHop[] }) {
  return (
    <ol className="fallback-chain" aria-label="Fallback chain">
      {chain.map((hop, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a chain never changes order, and the same profile and model may appear twice (tried, then skipped)
        <li key={index} className={hop.note !== undefined ? 'muted' : hop.errorClass === null ? 'ok' : 'bad'}>
          {describeHop(hop)}
        </li>
      ))}
    </ol>
  );
}
