import type { RequestLifecycleEvent } from '../events/lifecycle.ts';

export interface SliceLimits {
  maxEvents: number;
  /** Body bytes to mask, index and write in one go; the event loop runs between slices. */
  maxBodyBytes: number;
}

/**
 * Keeps one slice to a few milliseconds: about fifty small requests (fewer commits cost little
 * less per request), or a few large agent contexts.
 */
export const DEFAULT_SLICE_LIMITS: SliceLimits = { maxEvents: 150, maxBodyBytes: 256 * 1024 };

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
