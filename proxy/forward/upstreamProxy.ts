/**
 * The HTTP proxy Airlock reaches gateways through, as the environment names it. Behind a company's
 * proxy the tools reach the gateway through it (curl, Python's httpx and requests, Codex's reqwest,
 * Claude Code all read HTTPS_PROXY, HTTP_PROXY and NO_PROXY), so Airlock, now between them and the
 * gateway, must too: without it every tool that worked stopped working once pointed at Airlock.
 */
export interface UpstreamProxy {
  /** For https:// gateways; '' for none. May hold the proxy's credentials: never shown. */
  httpsProxyUrl: string;
  /** For http:// gateways; '' for none. */
  httpProxyUrl: string;
  /** Hosts reached directly (curl's NO_PROXY syntax, as undici's EnvHttpProxyAgent reads it); '' for none. */
  noProxy: string;
  /** What is used, for the user: each proxy without its credentials, the variable it came from, the exceptions. */
  description: string;
}

export interface UpstreamProxySetting {
  proxy: UpstreamProxy | null;
  /** Values that name no proxy Airlock can use, in words; such a variable is ignored. */
  problems: string[];
}

/** The scheme a proxy value without one gets, as curl gives it (a proxy spoken to in plain HTTP). */
const DEFAULT_PROXY_SCHEME = 'http://';
/** HTTP to the proxy, over TLS for https://; undici's SOCKS5 support is experimental and not used. */
const USABLE_PROXY_SCHEMES = new Set(['http:', 'https:']);

interface Named {
  variable: string;
  value: string;
}

/** Every variable that names a proxy, lower case before upper case as curl and undici read them. */
const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY'] as const;
/** The variables that name a proxy's exceptions, in the same order. */
export const NO_PROXY_VARIABLES = ['no_proxy', 'NO_PROXY'] as const;

/** A variable's value, trimmed; null when unset or blank (a blank one means none, as curl reads it). */
export function variableSet(env: NodeJS.ProcessEnv, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

/** The first set variable of the names. */
function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): Named | null {
  for (const variable of names) {
    const value = variableSet(env, variable);
    if (value !== null) return { variable, value };
  }
  return null;
}

/** The first proxy variable set in `env`, or null: nothing started with it goes through a proxy. */
export function proxyVariableSet(env: NodeJS.ProcessEnv): string | null {
  return firstSet(env, PROXY_VARIABLES)?.variable ?? null;
}

/** A proxy value as a URL: one without a scheme is http://, as curl takes it. */
export function withScheme(value: string): string {
  return value.includes('://') ? value : `${DEFAULT_PROXY_SCHEME}${value}`;
}

/** The proxy URL without its user name and password, for text a user sees. */
export function proxyShown(url: string): string {
  const parsed = URL.parse(url);
  if (parsed === null) return '(a proxy URL that does not parse)';
  return `${parsed.protocol}//${parsed.host}`;
}

/** A named value as a proxy URL Airlock can use, or the problem with it. */
function usableProxy(named: Named): { url: string } | { problem: string } {
  const text = withScheme(named.value);
  const url = URL.parse(text);
  if (url === null || url.hostname === '') return { problem: `${named.variable} is not a proxy URL Airlock can read, so it is ignored` };
  // A password with / ? or # not percent-encoded ends the host early: the rest, the real host included, became a path.
  if (url.pathname.includes('@') || url.search.includes('@') || url.hash.includes('@')) {
    return {
      problem: `${named.variable} is not a proxy URL Airlock can read (percent-encode the / ? # in its password), so it is ignored`,
    };
  }
  if (!USABLE_PROXY_SCHEMES.has(url.protocol)) {
    return {
      problem: `${named.variable} names a ${url.protocol.slice(0, -1)} proxy (${proxyShown(text)}); Airlock speaks only to http:// and https:// proxies, so it is ignored`,
    };
  }
  return { url: url.href };
}

/**
 * The proxy settings of an environment: HTTPS_PROXY for https:// gateways and HTTP_PROXY for http://
 * ones, ALL_PROXY for either when its own is unset (curl's rule), NO_PROXY for the exceptions.
 */
export function upstreamProxyFromEnv(env: NodeJS.ProcessEnv): UpstreamProxySetting {
  const problems: string[] = [];
  const all = firstSet(env, ['all_proxy', 'ALL_PROXY']);
  const pick = (names: readonly string[]): { url: string; variable: string } | null => {
    const named = firstSet(env, names) ?? all;
    if (named === null) return null;
    const usable = usableProxy(named);
    if ('problem' in usable) {
      if (!problems.includes(usable.problem)) problems.push(usable.problem);
      return null;
    }
    return { url: usable.url, variable: named.variable };
  };
  const https = pick(['https_proxy', 'HTTPS_PROXY']);
  const http = pick(['http_proxy', 'HTTP_PROXY']);
  if (https === null && http === null) return { proxy: null, problems };
  const noProxy = firstSet(env, NO_PROXY_VARIABLES);
  // undici matches host names and domains; an address range (curl reads CIDR since 7.86) matches nothing.
  const ranges = (noProxy?.value.split(/[,\s]+/) ?? []).filter((entry) => entry.includes('/'));
  if (noProxy !== null && ranges.length > 0) {
    problems.push(`${noProxy.variable}'s ${ranges.join(', ')} is an address range, which Airlock does not read: name the hosts instead`);
  }
  const used = [
    https && `https:// gateways through ${proxyShown(https.url)} (${https.variable})`,
    http && `http:// gateways through ${proxyShown(http.url)} (${http.variable})`,
  ];
  const exceptions = noProxy === null ? '' : `; directly to ${noProxy.value} (${noProxy.variable})`;
  return {
    proxy: {
      httpsProxyUrl: https?.url ?? '',
      httpProxyUrl: http?.url ?? '',
      noProxy: noProxy?.value ?? '',
      description: `Reaching ${used.filter((part) => part !== null).join(', ')}${exceptions}.`,
    },
    problems,
  };
}
