import { redactSecrets } from './redact.ts';

/**
 * Turns whatever a user pasted as the gateway address into `{origin}{prefix}/v1`, the form the
 * gateway contract calls {base_url} (the only version marker is the /v1 path segment: docs/gateway-spec.md §9).
 */
export type BaseUrlResult = { ok: true; baseUrl: string; warning?: string } | { ok: false; reason: string };

const SURROUNDING_QUOTES = /^["'`\u2018\u2019\u201C\u201D]+|["'`\u2018\u2019\u201C\u201D]+$/g;
/** Zero-width characters come along when copying from web pages and chats; invisible, and never part of an address. */
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/g;
/**
 * A URL copied out of a sentence brings its brackets or full stop: no base URL starts or ends with
 * one. Square brackets stay: they enclose an IPv6 host (`[::1]`).
 */
const SENTENCE_PUNCTUATION = /^[({<]+|[.,;:!?)}>]+$/g;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** `https:/host`, `https:host`, `http//host`: without repair the scheme would become the host name. */
const MISTYPED_HTTP_SCHEME = /^(https?)(?::\/*|\/+)/i;
const VERSION_SEGMENT = 'v1';
/** Endpoint names a user may paste after the base (docs/gateway-spec.md §4 and the common client APIs). */
const ENDPOINT_SEGMENTS = new Set(['chat', 'completions', 'models', 'responses', 'messages', 'count_tokens', 'embeddings']);

export function normalizeBaseUrl(input: string): BaseUrlResult {
  const trimmed = input.replace(ZERO_WIDTH, '').trim().replace(SURROUNDING_QUOTES, '').trim().replace(SENTENCE_PUNCTUATION, '');
  if (trimmed === '') return { ok: false, reason: 'The base URL is empty: paste the gateway address ending in /v1.' };
  if (/\s/.test(trimmed)) return { ok: false, reason: 'The base URL contains a space or line break: paste it as one piece.' };

  const repaired = trimmed.replace(MISTYPED_HTTP_SCHEME, '$1://');
  const hasScheme = HAS_SCHEME.test(repaired);
  let url: URL;
  try {
    url = new URL(hasScheme ? repaired : `https://${repaired}`);
  } catch {
    return { ok: false, reason: 'The base URL is not a valid address: it should look like https://host/v1.' };
  }
  // The address a server listens on, copied from its start-up line (`http://0.0.0.0:8000`): as a destination it
  // means this machine's loopback on Linux and macOS, and fails to connect on Windows (nodejs/node#14900).
  const loopback = LOOPBACK_OF_UNSPECIFIED[url.hostname];
  if (loopback !== undefined) url.hostname = loopback;
  // A server on this machine typed without a scheme (localhost:11434) speaks plain http: https could never connect.
  if (!hasScheme && isLoopbackHost(url.hostname)) url.protocol = 'http:';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: `The base URL uses ${url.protocol}, but only https: and http: are supported.` };
  }
  // Never echo the userinfo: it is usually the key pasted into the wrong field.
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      reason: 'The base URL contains credentials (user:password@). Remove them and store the key in the key field.',
    };
  }
  if (url.hostname === '') return { ok: false, reason: 'The base URL has no host name.' };
  // The key pasted into the address field (or after a prefilled https://) parses as a host name: saved, it sat in
  // airlock.json and the window, and every request sent it to the DNS resolver in clear. Never echoed.
  if (looksLikeKeyHost(typedHost(repaired))) {
    return {
      ok: false,
      reason:
        'The base URL looks like a gateway key, not an address, and was not saved: put the key in the key field and the gateway address (https://host/v1) here.',
    };
  }
  // Port 0 is no destination (connect() to it fails with EADDRNOTAVAIL or ECONNREFUSED), so no gateway is reached there.
  if (url.port === '0')
    return { ok: false, reason: "The base URL's port is 0, which no server listens on: give the gateway's port, or none for 443." };

  const { prefix, ignoredPath } = splitPath(url.pathname);
  // The key pasted into the path before /v1 (https://gw.example/sk-…/v1) was kept as the prefix: it then sat in
  // airlock.json, the window and every text naming the base URL. Refused and never echoed, as the key as the host is.
  if (prefix.split('/').some(looksLikeKeySegment)) {
    return {
      ok: false,
      reason:
        "The base URL has what looks like a gateway key in its path, and was not saved: put the key in the key field and the gateway's address (https://host/v1) here.",
    };
  }
  const warnings: string[] = [];
  // Masked by the secret shapes: a key pasted after the address (https://host/v1/sk-…) reached stderr and the window.
  if (ignoredPath !== '')
    warnings.push(`The part after /v1 (${redactSecrets(ignoredPath)}) was ignored: clients add the endpoint path themselves.`);
  // The base URL keeps no query (a client's own goes on with its request): one pasted with the address was dropped without
  // a word, and the gateway then refused what it needed (a key in ?key=) or the address (Azure's deployment URLs with
  // ?api-version=). Named without its text, which may hold the key. Azure OpenAI's v1 API takes
  // https://<resource>.openai.azure.com/openai/v1 with no api-version (learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle).
  if (url.search !== '' && url.search !== '?') {
    warnings.push(
      "The query after ? was ignored: a base URL keeps none (a client's own query still goes with its request). A key in it belongs in the key field; an Azure OpenAI resource takes https://<resource>.openai.azure.com/openai/v1 without an api-version.",
    );
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    warnings.push('The base URL uses plain http to a remote host: the key would cross the network unencrypted. Use https.');
  }
  const baseUrl = `${url.protocol}//${url.host}${prefix}/${VERSION_SEGMENT}`;
  return warnings.length === 0 ? { ok: true, baseUrl } : { ok: true, baseUrl, warning: warnings.join(' ') };
}

/**
 * The segments before the first `v1` are a path prefix (`/api/v1` keeps `/api`); everything from
 * `v1` on is a version marker plus an endpoint. Without `v1`, known endpoint names at the end are
 * dropped and the rest is the prefix.
 */
function splitPath(pathname: string): { prefix: string; ignoredPath: string } {
  const segments = pathname.split('/').filter((segment) => segment !== '');
  // `/V1` typed with a capital is the version marker all the same: kept, it became /V1/v1.
  const isVersion = (segment: string): boolean => segment.toLowerCase() === VERSION_SEGMENT;
  const versionIndex = segments.findIndex(isVersion);
  if (versionIndex === -1) {
    let end = segments.length;
    while (end > 0 && ENDPOINT_SEGMENTS.has(segments[end - 1]!.toLowerCase())) end -= 1;
    return { prefix: joinSegments(segments.slice(0, end)), ignoredPath: '' };
  }
  const afterVersion = segments.slice(versionIndex + 1).filter((segment) => !isVersion(segment));
  const unknown = afterVersion.some((segment) => !ENDPOINT_SEGMENTS.has(segment.toLowerCase()));
  return {
    prefix: joinSegments(segments.slice(0, versionIndex)),
    ignoredPath: unknown ? joinSegments(afterVersion) : '',
  };
}

/**
 * Whether a host as typed is a key rather than a name: it has the secret shapes the log masks, and is one label (a
 * key holds no dot), or a label no DNS name has (over 63 characters, as a JWT's payload), or a label of mixed case
 * with the shape (a random run: names are typed in one case, and the parser lowercases them). Real gateway names
 * with the shape in a lower-case label stay addresses: `sk-openai-gateway.azurewebsites.net`, or a 32-hex label a
 * cloud generates (review R2 found both refused).
 */
function looksLikeKeyHost(host: string): boolean {
  if (redactSecrets(host) === host) return false;
  const labels = host.split('.');
  return (
    labels.length === 1 ||
    labels.some(
      (label) => label.length > MAX_DNS_LABEL_LENGTH || (/[a-z]/.test(label) && /[A-Z]/.test(label) && redactSecrets(label) !== label),
    )
  );
}

/**
 * Whether a path segment before /v1 is a key: it has the secret shapes the log masks, is key-long with a digit, as every
 * generated key is, and is not hex alone. A name has the sk- shape too (`/sk-telecom-gateway/v1` was refused, where the
 * same word is taken as a host label or a profile name). A cloud puts its account id in the path as 32 hex digits, which
 * the shapes mask too (Cloudflare's Workers AI: https://api.cloudflare.com/client/v4/accounts/{account_id}/ai/v1,
 * developers.cloudflare.com/workers-ai/configuration/open-ai-compatibility/).
 */
function looksLikeKeySegment(segment: string): boolean {
  return segment.length >= MIN_KEY_LENGTH && /\d/.test(segment) && redactSecrets(segment) !== segment && !/^[0-9a-f]+$/i.test(segment);
}

/** Shorter than any generated key: DeepSeek's, `sk-` and 32 hex digits, is 35 (as configMutations.ts holdsKey reads a name). */
const MIN_KEY_LENGTH = 24;

/** RFC 1035 section 2.3.4. */
const MAX_DNS_LABEL_LENGTH = 63;

/**
 * The host and port as typed, between the scheme (or the start) and the path, query or fragment. Slashes and backslashes
 * before it are skipped, as the URL parser skips them (WHATWG URL, special authority ignore slashes state): counted as an
 * empty host, `https:\\sk-…` and `//sk-…/v1` passed the check and the key was saved as the host.
 */
function typedHost(address: string): string {
  return (
    address
      .replace(HAS_SCHEME, '')
      .replace(/^[/\\]+/, '')
      .split(/[/?#\\]/, 1)[0] ?? ''
  );
}

function joinSegments(segments: string[]): string {
  return segments.map((segment) => `/${segment}`).join('');
}

/** The unspecified addresses, as the URL parser writes them, and the loopback of the same family that Linux connects to instead. */
const LOOPBACK_OF_UNSPECIFIED: Readonly<Record<string, string>> = { '0.0.0.0': '127.0.0.1', '[::]': '[::1]' };

/**
 * This machine by name or loopback address, also an IPv4 loopback mapped into IPv6
 * (`::ffff:127.0.0.1`, which the URL parser writes `[::ffff:7f00:1]`).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const ipv4 = host.startsWith('::ffff:') ? host.slice('::ffff:'.length) : host;
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127(\.\d{1,3}){3}$/.test(ipv4) ||
    /^7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(ipv4)
  );
}
