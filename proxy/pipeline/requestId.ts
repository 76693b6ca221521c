import { randomBytes } from 'node:crypto';

const TIME_HEX_DIGITS = 12;
const RANDOM_BYTES = 10;

/**
 * Airlock's request id: `alk_`, the start time in milliseconds (12 hex digits), then 80 random
 * bits. Ids that grow with time are appended at the end of the log's id indexes; random ones were
 * inserted all over them, and each commit rewrote a page per request (about 15-30 us a request).
 */
export function newRequestId(nowMs: number = Date.now()): string {
  return `alk_${nowMs.toString(16).padStart(TIME_HEX_DIGITS, '0')}${randomBytes(RANDOM_BYTES).toString('hex')}`;
}
