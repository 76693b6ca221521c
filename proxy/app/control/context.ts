import type { StatusResponse } from '../../contracts/status.ts';
import type { ControlDeps, ProxyControl } from './deps.ts';
import type { LiveHub } from './liveHub.ts';
import type { ModelCatalog } from './modelCatalog.ts';

/** What every route module gets: the modules to call and the control API's own state. */
export interface ControlContext {
  deps: ControlDeps;
  hub: LiveHub;
  catalog: ModelCatalog;
  /** null until the server is listening (the router is created before startServer runs). */
  proxy: () => ProxyControl | null;
  nowMs: () => number;
  status: () => StatusResponse;
}

/** Express 5 route params are strings; a missing one is a routing bug, not user input. */
export function param(params: Record<string, string | string[] | undefined>, name: string): string {
  const value = params[name];
  if (typeof value !== 'string') throw new Error(`route parameter ${name} missing`);
  return value;
}
