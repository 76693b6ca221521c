/**
 * The proxy the OS settings choose for the gateways, for a desktop app the shell's HTTPS_PROXY
 * never reaches: started from the Dock, the Start menu or at login, it has no shell environment,
 * while a company sets its proxy (often a PAC file) in the OS. Chromium reads those settings;
 * Electron's `session.resolveProxy(url)` answers in PAC's form, an ordered list to try,
 * `PROXY host:port; DIRECT` (Electron's Session docs; VS Code resolves its proxies the same way).
 * Airlock's proxy core reads proxy variables (proxy/forward/upstreamProxy.ts), so the answers
 * become those variables.
 */

/** PAC's proxy kinds Airlock speaks to, as the proxy URL's scheme; SOCKS and QUIC are skipped to the next entry. */
const USABLE_KINDS: Record<string, string> = { PROXY: 'http', HTTPS: 'https' };

/**
 * The proxy URL of the first entry of a PAC answer Airlock can use; null for a direct connection
 * (DIRECT first, or nothing usable before it), as Chromium itself would go.
 */
export function proxyUrlOfPacAnswer(answer: string): string | null {
  for (const entry of answer.split(';')) {
    const [kind = '', hostPort = ''] = entry.trim().split(/\s+/);
    const upper = kind.toUpperCase();
    if (upper === 'DIRECT') return null;
    const scheme = USABLE_KINDS[upper];
    if (scheme !== undefined && hostPort !== '') return `${scheme}://${hostPort}`;
  }
  return null;
}

export interface ResolvedGateway {
  /** A profile's base URL; the active profile's first. */
  url: string;
  /** What `session.resolveProxy(url)` answered. */
  pacAnswer: string;
}

/**
 * The proxy variables that send the gateways where the OS settings send them: per scheme, the first
 * gateway's proxy (the active profile's), and NO_PROXY for the hosts the settings reach directly
 * (a gateway on this computer or the company's network). A gateway sent to another proxy than its
 * scheme's first keeps that first one: the variables name one proxy a scheme.
 */
export function systemProxyVariables(gateways: readonly ResolvedGateway[]): Record<string, string> {
  const proxies: Record<string, string> = {};
  const direct: string[] = [];
  for (const gateway of gateways) {
    const url = URL.parse(gateway.url);
    if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) continue;
    const proxy = proxyUrlOfPacAnswer(gateway.pacAnswer);
    const variable = url.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
    if (proxy === null) {
      if (!direct.includes(url.hostname)) direct.push(url.hostname);
    } else {
      proxies[variable] ??= proxy;
    }
  }
  if (Object.keys(proxies).length === 0) return {};
  return direct.length === 0 ? proxies : { ...proxies, NO_PROXY: direct.join(',') };
}
