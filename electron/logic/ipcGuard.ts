/**
 * Every IPC handler runs only for the app's own UI in the window's top frame. Anything else (a
 * page the window was somehow navigated to, a frame, a destroyed frame) is refused before the
 * handler sees its arguments.
 */
import { isAppUiUrl } from './navigation.ts';

/** The part of Electron's IpcMainInvokeEvent the guard reads (kept small so tests can fake it). */
export interface IpcSenderEventLike {
  senderFrame: { url: string; parent: unknown } | null;
}

export class IpcSenderRejectedError extends Error {
  override name = 'IpcSenderRejectedError';
}

export function isTrustedSender(event: IpcSenderEventLike, proxyOrigin: string | null): boolean {
  const frame = event.senderFrame;
  if (proxyOrigin === null || frame === null) return false;
  if (frame.parent !== null) return false;
  return isAppUiUrl(frame.url, proxyOrigin);
}

/**
 * Wraps a handler so it throws (the renderer's invoke rejects) for an untrusted sender. The proxy
 * origin is read per call: it is unknown until the proxy has started.
 */
export function guardIpcHandler<Event extends IpcSenderEventLike, Args extends unknown[], Result>(
  currentProxyOrigin: () => string | null,
  handler: (event: Event, ...args: Args) => Result,
): (event: Event, ...args: Args) => Result {
  return (event, ...args) => {
    if (!isTrustedSender(event, currentProxyOrigin())) {
      throw new IpcSenderRejectedError('IPC refused: the sender is not the Airlock window');
    }
    return handler(event, ...args);
  };
}
