import {
  compactingCollector,
  DEFAULT_RECLAIM_OPTIONS,
  type MemoryReclaimer,
  type ReclaimOptions,
  startMemoryReclaimer,
  trimWhenIdle,
} from '../core/memoryReclaimer.ts';
import { glibcMallocTrim } from '../core/mallocTrim.ts';
import { closeSpareHttpParsers } from './spareParsers.ts';

/**
 * The forwarding thread's reclaimer: a burst's heap is given back once no request is in flight and
 * the loop is idle, and so are node:http's spare parsers (their malloc trimmed at the same check).
 */
export function startForwardingReclaimer(busy: () => boolean, options: ReclaimOptions = DEFAULT_RECLAIM_OPTIONS): MemoryReclaimer {
  return startMemoryReclaimer(busy, options, compactingCollector(), glibcMallocTrim(), () => {
    if (closeSpareHttpParsers() > 0) trimWhenIdle();
  });
}
