import type { IncomingHttpHeaders } from 'node:http';

/**
 * Which requests the idempotency cache covers. Seed section 3: image and video creation may have
 * succeeded even when the client saw a failure, so a repeat carrying the same key must not be
 * sent again. Only creation (POST) under an image or video path is a side effect; polling is not.
 */
export const IDEMPOTENCY_KEY_HEADERS = ['idempotency-key', 'x-idempotency-key', 'x-task-id'] as const;

const SIDE_EFFECT_SEGMENTS = new Set(['image', 'images', 'video', 'videos']);

/** The first non-empty key header, in the order above; header names arrive lower-cased from Node. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | null {
  for (const name of IDEMPOTENCY_KEY_HEADERS) {
    const raw = headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value) return value;
  }
  return null;
}

export function isSideEffectRequest(method: string, upstreamPath: string): boolean {
  if (method.toUpperCase() !== 'POST') return false;
  const pathOnly = upstreamPath.split('?', 1)[0] ?? '';
  return pathOnly.split('/').some((segment) => SIDE_EFFECT_SEGMENTS.has(segment.toLowerCase()));
}
