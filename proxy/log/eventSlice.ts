import type { RequestLifecycleEvent } from '../events/lifecycle.ts';

export interface SliceLimits {
  maxEvents: number;
  /** Body bytes to mask, index and write in one go; the event loop runs between slices. */
  maxBodyBytes: number;
}

/**
 * Keeps one slice to a millisecond or two: about twenty small requests, or a large agent context.
 * A request crosses the event loop several times, so it can wait behind several slices.
 */
export const DEFAULT_SLICE_LIMITS: SliceLimits = { maxEvents: 60, maxBodyBytes: 128 * 1024 };

function bodyBytesOf(event: RequestLifecycleEvent): number {
  if (event.type !== 'end') return 0;
  const { requestBody, responseBody, streamText } = event.bodies;
  return (requestBody?.length ?? 0) + (responseBody?.length ?? 0) + (streamText?.length ?? 0);
}

/** How many queued events the next slice takes: at least one, then up to either limit. */
export function nextSliceLength(queue: readonly RequestLifecycleEvent[], limits: SliceLimits): number {
  let bodyBytes = 0;
  let length = 0;
  for (const event of queue) {
    if (length >= limits.maxEvents) break;
    bodyBytes += bodyBytesOf(event);
    if (length > 0 && bodyBytes > limits.maxBodyBytes) break;
    length += 1;
  }
  return length;
}
