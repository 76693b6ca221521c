import type { IncomingHttpHeaders } from 'node:http';
import { isSideEffectCreationPath } from '../core/clientPath.ts';

/**
 * Which requests the idempotency cache covers. docs/gateway-spec.md §3: image and video creation may have
 * succeeded even when the client saw a failure, so a repeat carrying the same key must not be
 * sent again. Only creation (POST) under an image or video path is a side effect; polling is not.
 */
export const IDEMPOTENCY_KEY_HEADERS = ['idempotency-key', 'x-idempotency-key', 'x-task-id'] as const;

/** The first non-empty key header, in the order above; header names arrive lower-cased from Node. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | null {
  for (const name of IDEMPOTENCY_KEY_HEADERS) {
    const raw = headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value) return value;
  }
  return null;
}

/** The same creation paths the retry policy never resends (one definition, in core/clientPath). */
export function isSideEffectRequest(method: string, upstreamPath: string): boolean {
  return method.toUpperCase() === 'POST' && isSideEffectCreationPath(upstreamPath.split('?', 1)[0] ?? '');
}
