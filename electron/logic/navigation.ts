/**
 * Where the window may go. It shows only the proxy's own UI under `/_airlock/`; every other
 * navigation and every new window is refused. A refused link may open in the OS browser, but only
 * when it is https and its origin is on the allowlist.
 */
export const UI_PATH_PREFIX = '/_airlock/';

/** The project's home and the places its help links point to. */
export const DEFAULT_EXTERNAL_ORIGINS: readonly string[] = ['https://github.com'];

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** The URL the window loads: `http://127.0.0.1:PORT/_airlock/`. */
export function appUiUrl(proxyOrigin: string): string {
  return new URL(UI_PATH_PREFIX, proxyOrigin).toString();
}

/** True when the URL is the app's own UI: same origin as the proxy and under `/_airlock/`. */
export function isAppUiUrl(url: string, proxyOrigin: string): boolean {
  const parsed = parseUrl(url);
  const expected = parseUrl(proxyOrigin);
  if (!parsed || !expected) return false;
  if (parsed.username !== '' || parsed.password !== '') return false;
  return parsed.origin === expected.origin && parsed.pathname.startsWith(UI_PATH_PREFIX);
}

export function isAllowedExternalUrl(url: string, allowedOrigins: readonly string[]): boolean {
  const parsed = parseUrl(url);
  if (parsed?.protocol !== 'https:') return false;
  if (parsed.username !== '' || parsed.password !== '') return false;
  return allowedOrigins.some((origin) => parseUrl(origin)?.origin === parsed.origin);
}

/** The https origins of the user's gateways, so "open the gateway's site" links work. */
export function gatewayOrigins(baseUrls: readonly string[]): string[] {
  const origins = new Set<string>();
  for (const baseUrl of baseUrls) {
    const parsed = parseUrl(baseUrl);
    if (parsed?.protocol === 'https:') origins.add(parsed.origin);
  }
  return [...origins];
}

export type NavigationDecision = { action: 'allow' } | { action: 'deny'; openExternally: boolean };

/** For 'will-navigate' and 'will-redirect': stay inside the UI, else refuse (maybe hand to the browser). */
export function decideNavigation(url: string, proxyOrigin: string, allowedOrigins: readonly string[]): NavigationDecision {
  if (isAppUiUrl(url, proxyOrigin)) return { action: 'allow' };
  return { action: 'deny', openExternally: isAllowedExternalUrl(url, allowedOrigins) };
}

/** For setWindowOpenHandler: a new Electron window is never created. */
export function decideNewWindow(url: string, allowedOrigins: readonly string[]): { action: 'deny'; openExternally: boolean } {
  return { action: 'deny', openExternally: isAllowedExternalUrl(url, allowedOrigins) };
}
