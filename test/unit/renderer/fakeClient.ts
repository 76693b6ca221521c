import type { ControlClient } from '../../../renderer/src/api/client.ts';

/** A control client with only `overrides`: any other call rejects, naming it, so a test sees what it did not expect. */
export function fakeClient(overrides: Partial<ControlClient>): ControlClient {
  return new Proxy(overrides as ControlClient, {
    get: (target, name: string) => target[name as keyof ControlClient] ?? (() => Promise.reject(new Error(`unexpected call ${name}`))),
  });
}
