import { createRequire } from 'node:module';
import type * as NodeHttp from 'node:http';

/**
 * node:http, required rather than imported. An ES import of a built-in makes Node build its module
 * facade by reading every export, and `http.WebSocket` is a lazy getter that loads Node's bundled
 * undici (fetch, WebSocket and the rest: 2.3 MB of heap, never used here; nodejs/node#59686). A
 * require reads only what is used. `loadedAtStart.test.ts` checks the bundle stays unloaded.
 */
const nodeHttp = createRequire(import.meta.url)('node:http') as typeof NodeHttp;

export const { createServer, request, STATUS_CODES } = nodeHttp;
