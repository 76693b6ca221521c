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

/** The names of one port, made when the port is first asked about rather than for every request (the port rarely changes). */
interface PortNames {
  port: number;
  origins: readonly string[];
  hosts: readonly string[];
}

let lastPortNames: PortNames | null = null;

function namesOf(port: number): PortNames {
  if (lastPortNames?.port !== port) {
    lastPortNames = {
      port,
      origins: [`http://127.0.0.1:${port}`, `http://localhost:${port}`],
      hosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`],
    };
  }
  return lastPortNames;
}

/** The origins the app's own window is served from. */
export function ownOrigins(port: number): readonly string[] {
  return namesOf(port).origins;
}

function loopbackHosts(port: number): readonly string[] {
  return namesOf(port).hosts;
}
