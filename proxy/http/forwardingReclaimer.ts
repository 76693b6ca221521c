import {
  compactingCollector,
  DEFAULT_RECLAIM_OPTIONS,
  type MemoryReclaimer,
  type ReclaimOptions,
  startMemoryReclaimer,
  trimWhenIdle,
} from '../core/memoryReclaimer.ts';
import type { ServerResponse } from 'node:http';
import { glibcMallocTrim } from '../core/mallocTrim.ts';
import { closeSpareHttpParsers } from './spareParsers.ts';

/**
 * The forwarding thread's reclaimer: a burst's heap is given back once no request has come for its
 * idle checks (busySinceLastCheck) and the loop is idle, and so are node:http's spare parsers (their malloc trimmed at the same check).
 */
export function startForwardingReclaimer(busy: () => boolean, options: ReclaimOptions = DEFAULT_RECLAIM_OPTIONS): MemoryReclaimer {
  return startMemoryReclaimer(busy, options, compactingCollector(), glibcMallocTrim(), () => {
    if (closeSpareHttpParsers() > 0) trimWhenIdle();
  });
}

/** The forwarded requests in flight, counting every one that came: the reclaimer asks whether any came since its last check. */
export class InFlightRequests extends Set<ServerResponse> {
  #arrived = 0;
  override add(response: ServerResponse): this {
    this.#arrived += 1;
    return super.add(response);
  }
  get arrived(): number {
    return this.#arrived;
  }
}

/**
 * Busy at a check when a request is in flight or one came since the check before, so the idle
 * checks in a row mean as many intervals without a request. In flight at the check alone counted a
 * thread answering 600 requests every 5-9 s as idle (its loop under 5% busy, rarely one in flight
 * at a check): the bench's c=1 rounds met its burst collection in one round of seven in some runs
 * and not in others, and the code V8 compiles again after one took that run's warm CPU from 1.3x
 * the floor to 1.8x (DESIGN.md, "Warm at c=1").
 */
export function busySinceLastCheck(inFlight: InFlightRequests): () => boolean {
  let arrivedAtLastCheck = inFlight.arrived;
  return () => {
    const cameSinceLastCheck = inFlight.arrived !== arrivedAtLastCheck;
    arrivedAtLastCheck = inFlight.arrived;
    return cameSinceLastCheck || inFlight.size > 0;
  };
}
