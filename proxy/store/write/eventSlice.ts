import type { RequestLifecycleEvent } from '../../contracts/lifecycle.ts';

export interface SliceLimits {
  maxEvents: number;
  /** Body bytes to mask, index and write in one transaction. */
  maxBodyBytes: number;
}

/** The captured body bytes an event carries (only `end` carries bodies). */
export function bodyBytesOf(event: RequestLifecycleEvent): number {
  if (event.type !== 'end') return 0;
  const { requestBody, responseBody, streamText } = event.bodies;
  return (requestBody?.length ?? 0) + (responseBody?.length ?? 0) + (streamText?.length ?? 0);
}

/** How many events from `from` on the next slice takes: at least one, then up to either limit. */
export function nextSliceLength(events: readonly RequestLifecycleEvent[], limits: SliceLimits, from = 0): number {
  let bodyBytes = 0;
  let length = 0;
  for (let index = from; index < events.length; index += 1) {
    if (length >= limits.maxEvents) break;
    bodyBytes += bodyBytesOf(events[index] as RequestLifecycleEvent);
    if (length > 0 && bodyBytes > limits.maxBodyBytes) break;
    length += 1;
  }
  return length;
}
