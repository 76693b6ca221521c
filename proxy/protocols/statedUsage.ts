import type { TokenUsage } from '../contracts/usage.ts';
import type { ProtocolAdapter } from './adapter.ts';
import type { SseEvent } from './sse.ts';
import { createSseRelay } from './sseRelay.ts';

const ignore = (): void => undefined;

/**
 * The last count a stream's captured start stated before its final usage (its protocol's observer
 * says which: Messages' message_start, a running chat count), or null. Read again only when a
 * stream ended without its final usage, so the forwarding path keeps no state for it.
 */
export function statedUsageIn(adapter: ProtocolAdapter, capturedStream: Buffer): TokenUsage | null {
  let stated: TokenUsage | null = null;
  const sink = {
    onDelta: ignore,
    onModel: ignore,
    onUsage: ignore,
    onStatedUsage: (usage: TokenUsage) => {
      stated = usage;
    },
  };
  const observer = adapter.stream.observer(sink, { dropUsageOnlyChunks: false, usageAsked: false });
  const readOnly = (event: SseEvent): string => {
    observer.observe(event);
    return '';
  };
  createSseRelay(readOnly, ignore).feed(capturedStream);
  return stated;
}
