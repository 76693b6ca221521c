/**
 * The window's Content-Security-Policy. Scripts only from the proxy's own origin, connections only
 * to the proxy, nothing framed, no plugins, no form posts elsewhere. Inline styles stay off unless
 * asked for: React sets styles through the CSSOM, which CSP does not restrict.
 */
export interface CspOptions {
  /** The proxy origin, e.g. `http://127.0.0.1:8642`. */
  proxyOrigin: string;
  allowInlineStyles?: boolean;
}

const LOOPBACK_ORIGIN_PATTERN = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}$/;

export function contentSecurityPolicy(options: CspOptions): string {
  if (!LOOPBACK_ORIGIN_PATTERN.test(options.proxyOrigin)) {
    throw new Error(`the window's CSP needs a loopback http origin with a port, got ${JSON.stringify(options.proxyOrigin)}`);
  }
  const styleSources = options.allowInlineStyles ? "'self' 'unsafe-inline'" : "'self'";
  const directives: [string, string][] = [
    ['default-src', "'none'"],
    ['script-src', "'self'"],
    ['style-src', styleSources],
    ['img-src', "'self' data:"],
    ['font-src', "'self'"],
    ['connect-src', options.proxyOrigin],
    ['object-src', "'none'"],
    ['base-uri', "'none'"],
    ['form-action', "'none'"],
    ['frame-ancestors', "'none'"],
    ['frame-src', "'none'"],
    ['worker-src', "'none'"],
  ];
  return directives.map(([name, value]) => `${name} ${value}`).join('; ');
}

export type ResponseHeaders = Record<string, string[] | string>;

/** Response headers with ours as the only CSP: a looser one from the server must not survive. */
export function withContentSecurityPolicy(headers: ResponseHeaders | undefined, policy: string): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'content-security-policy' || lower === 'content-security-policy-report-only') continue;
    result[name] = Array.isArray(value) ? value : [value];
  }
  result['Content-Security-Policy'] = [policy];
  return result;
}
