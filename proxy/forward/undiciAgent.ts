/// <reference path="./undiciModules.d.ts" />
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
