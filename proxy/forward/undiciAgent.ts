/// <reference path="./undiciModules.d.ts" />
import { createRequire } from 'node:module';
import type { EnvHttpProxyAgent, Pool } from 'undici';
import AgentOnly from 'undici/lib/dispatcher/agent.js';

/**
 * undici's Agent, loaded from its own module rather than the package's index. The index loads all of
 * undici at start (fetch, WebSocket, EventSource, caches, mocks), none of which the proxy uses, and a
 * module's source and top-level objects stay in the heap for the process's life: the index took 5.7
 * MB of heap, the Agent alone 2.3 (Node 24, after two collections). undici publishes no subpath
 * exports, so this path is its file layout: `loadedAtStart.test.ts` checks it is the class the index
 * exports, so an update that moves it fails there, not at a user's start.
 */
export const Agent = AgentOnly;
export type Agent = InstanceType<typeof AgentOnly>;

const require = createRequire(import.meta.url);

/**
 * undici's EnvHttpProxyAgent (a proxy, NO_PROXY's exceptions) and Pool, loaded only once a proxy is
 * set (upstreamAgents.ts), and from undici's index: its ProxyAgent opens tunnels with the `connect`
 * method the index adds to every dispatcher (from its own module it failed, "connect is not a
 * function"). Most users have no proxy and do not pay the index's heap (above).
 */
export function loadProxyClasses(): { EnvHttpProxyAgent: typeof EnvHttpProxyAgent; Pool: typeof Pool } {
  const undici = require('undici') as typeof import('undici');
  return { EnvHttpProxyAgent: undici.EnvHttpProxyAgent, Pool: undici.Pool };
}
