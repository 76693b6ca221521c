import { type TopLevelScan, TopLevelScanner } from '../../proxy/forward/jsonScan.ts';

/** A whole body scanned at once, as the proxy scans it chunk by chunk while it arrives. */
export function scanTopLevel(chunks: readonly Buffer[], maxDepth = Number.POSITIVE_INFINITY): TopLevelScan {
  const scanner = new TopLevelScanner(maxDepth);
  for (const chunk of chunks) scanner.feed(chunk);
  return scanner.result;
}
