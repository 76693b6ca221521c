import { randomFillSync } from 'node:crypto';

const TIME_HEX_DIGITS = 12;
/** 80 random bits a request. */
const RANDOM_BYTES = 10;
/** Random bytes drawn at once, for this many ids: one kernel call, then a slice per id. */
const POOL_IDS = 256;

const pool = Buffer.alloc(RANDOM_BYTES * POOL_IDS);
let poolOffset = pool.length;
let prefixMs = -1;
let prefix = '';

const REQUEST_ID_PREFIX = 'alk_';
const REQUEST_ID_SHAPE = new RegExp(`^${REQUEST_ID_PREFIX}[0-9a-f]{${TIME_HEX_DIGITS + 2 * RANDOM_BYTES}}$`);

/** Whether the text is shaped as newRequestId makes them (client tokens share the `alk_` prefix, not the shape). */
export function isRequestIdShaped(text: string): boolean {
  return REQUEST_ID_SHAPE.test(text);
}

/**
 * Airlock's request id: `alk_`, the start time in milliseconds (12 hex digits), then 80 random
 * bits. Ids that grow with time are appended at the end of the log's id indexes; random ones were
 * inserted all over them, and each commit rewrote a page per request (about 15-30 us a request).
 */
export function newRequestId(nowMs: number = Date.now()): string {
  // Drawn from a pool refilled 256 ids at a time, and written as hex by one native call: randomUUID
  // (which pools too) spent more formatting its 36 characters than drawing them.
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const random = pool.toString('hex', poolOffset, poolOffset + RANDOM_BYTES);
  poolOffset += RANDOM_BYTES;
  // Requests that start in the same millisecond share the time part.
  if (nowMs !== prefixMs) {
    prefixMs = nowMs;
    prefix = `${REQUEST_ID_PREFIX}${nowMs.toString(16).padStart(TIME_HEX_DIGITS, '0')}`;
  }
  return prefix + random;
}
