/**
 * DNS rebinding and browser defences. A web page can make the browser send requests to
 * 127.0.0.1 (through a rebound DNS name, or directly with its own Origin); these checks let
 * through only requests addressed to the proxy by a loopback name and not sent by a foreign page.
 */

/** True only for `127.0.0.1:P`, `localhost:P` or `[::1]:P`, case-insensitive; a missing Host fails. */
export function checkHost(hostHeader: string | undefined, port: number): boolean {
  if (hostHeader === undefined) return false;
  const host = hostHeader.toLowerCase();
  return loopbackHosts(port).includes(host);
}

/**
 * An absent Origin passes: CLI tools and SDKs do not send one. Any Origin other than the app's own
 * fails, including the opaque `null` origin of sandboxed frames and file pages.
 */
export function checkOrigin(origin: string | undefined, ownOrigins: readonly string[]): boolean {
  if (origin === undefined) return true;
  return ownOrigins.includes(origin.toLowerCase());
}

/** The origins the app's own window is served from. */
export function ownOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}
