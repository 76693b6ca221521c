import type { ErrorClass, OpenAiErrorBody } from '../contracts/errors.ts';
import { BAD_REQUEST_STATUS_HINTS, explainError } from './errorExplanations.ts';
import { isUnknownIssuerCode } from './osCaStore.ts';
import { REDACTED, redactSecrets } from './redact.ts';

export interface ClientErrorDetail {
  upstreamMessage?: string;
  /** The failure's code: the gateway's own, or one Airlock made where it says more than the class (`stream_ended_early`). */
  errorCode?: string;
  /** Closest model ids, for model_not_found. */
  suggestions?: string[];
  profileName?: string;
  /** The limit that ran out, for the timeout classes. */
  timeoutMs?: number;
  /** With bad_request: a 404 means the gateway has no such endpoint. */
  upstreamStatus?: number;
  /** Secrets to remove from upstream text on top of anything shaped like a key. */
  knownSecrets?: string[];
  /** The gateway's id for the attempt the client sees: support asks for it (docs/gateway-spec.md rule 5). */
  upstreamRequestId?: string;
  /** The address a wrong base URL error names. */
  baseUrl?: string;
  /** With network: this computer's certificate store was trusted too when the attempt failed (core/osCaStore.ts). */
  osCaStoreTrusted?: boolean;
  /** With network: the HTTP proxy the attempt failed at, without its credentials (forward/upstreamProxy.ts). */
  proxyShown?: string;
  /** A creation (image, video, task, batch, fine-tuning job) sent without an idempotency key, which the gateway may have run (and billed) before it failed. */
  mayHaveCreated?: boolean;
}

/**
 * Why a failed creation is not to be resent as it is (docs/gateway-spec.md §7 rule 3), and what
 * makes a repeat safe: a key lets Airlock answer the repeat from the first instead of sending it.
 */
const MAY_HAVE_CREATED_HINT =
  "The gateway had this request, which creates paid work (an image, a video, a task, a batch or a fine-tuning job), and may have run and billed it before it failed, so it was not sent again, and your client is told not to resend it (x-should-retry: false). Check the gateway's task list or usage page before sending it again; sent with an Idempotency-Key header, a repeat is answered from the first instead of creating again.";

const TIMEOUT_SETTING: Partial<Record<ErrorClass, string>> = {
  timeout_connect: 'connectTimeoutMs',
  timeout_idle: 'idleTimeoutMs',
  timeout_total: 'totalTimeoutMs',
};

/** Hints for the network codes whose fix is specific. */
const NETWORK_CODE_HINTS: Record<string, string> = {
  ENOTFOUND: 'The host name does not resolve: check the host in the base URL.',
  EAI_AGAIN: 'The host name could not be resolved right now: check DNS or the VPN.',
  ECONNREFUSED: 'Nothing accepts connections at that host and port: check the port in the base URL.',
  // A gateway that refuses a body early (over its size limit, or a bad key) answers and closes
  // before reading the rest; the write then fails and Node's HTTP clients lose that answer
  // (nodejs/node#54366). EPIPE is a write to a closed connection, so the body is what it met.
  EPIPE:
    'The gateway closed the connection while the request was still being sent: gateways do this with a body over their size limit, or when they refuse the request early (a bad key). Send a smaller request, or check the size limit the gateway documents; if the same request goes through when sent again, it was a connection the gateway had just closed.',
  ECONNRESET:
    'The gateway (or something in between) reset the connection: while a large request is being sent, this is how some gateways refuse a body over their size limit; otherwise a proxy or firewall dropped the connection.',
  ERR_SSL_WRONG_VERSION_NUMBER: 'An https connection reached a plain-http port: check the scheme and port in the base URL.',
  CERT_HAS_EXPIRED: "The gateway's TLS certificate has expired.",
};

const UNKNOWN_ISSUER_HINT =
  "The gateway's TLS certificate is self-signed or from a certificate authority Airlock does not trust (a company's own CA, or a proxy that inspects TLS).";
const UNKNOWN_ISSUER_AFTER_OS_STORE_HINT = `${UNKNOWN_ISSUER_HINT} Airlock checked it against this computer's certificate store too, which does not trust it either: install that certificate authority there as trusted (macOS: Keychain Access, System keychain, Always Trust; Windows: Trusted Root Certification Authorities; Linux: the system CA bundle, e.g. with update-ca-certificates), then restart Airlock.`;

/** The hint for a network failure's code, where its fix is specific. */
export function networkCodeHint(code: string | undefined, osCaStoreTrusted: boolean): string | undefined {
  if (code === undefined) return undefined;
  if (isUnknownIssuerCode(code)) return osCaStoreTrusted ? UNKNOWN_ISSUER_AFTER_OS_STORE_HINT : UNKNOWN_ISSUER_HINT;
  return NETWORK_CODE_HINTS[code];
}

const MAX_UPSTREAM_MESSAGE_CHARS = 500;
const MAX_CODE_CHARS = 64;

/** The OpenAI-shaped body a client gets: cause, fix, and what the gateway said (with secrets removed). */
/** The closest model ids, as every refusal of an unknown model words them (a gateway's 404, a cap's unpriced model). */
export function didYouMean(modelIds: readonly string[]): string {
  return `Did you mean: ${modelIds.join(', ')}?`;
}

export function buildClientError(errorClass: ErrorClass, detail: ClientErrorDetail = {}): OpenAiErrorBody {
  const { meaning, fix } = explainError(errorClass, detail.errorCode);
  const secrets = detail.knownSecrets ?? [];
  // A hand-edited config may hold a key in the base URL it names.
  const parts = [`${meaning}${redactSecrets(causeSuffix(errorClass, detail), secrets)}.`];

  const statusHint =
    errorClass === 'bad_request' && detail.upstreamStatus !== undefined ? BAD_REQUEST_STATUS_HINTS[detail.upstreamStatus] : undefined;
  const networkHint = errorClass === 'network' ? networkCodeHint(detail.errorCode, detail.osCaStoreTrusted ?? false) : undefined;
  if (networkHint) parts.push(networkHint);
  // A status hint is that status's own fix: the generic one ("check the parameters, shorten the conversation") would contradict a firewall's 403.
  parts.push(statusHint ?? fix);
  if (detail.mayHaveCreated === true) parts.push(MAY_HAVE_CREATED_HINT);
  if (errorClass === 'model_not_found' && detail.suggestions && detail.suggestions.length > 0) parts.push(didYouMean(detail.suggestions));
  if (detail.upstreamMessage) {
    const said = collapseWhitespace(redactSecrets(detail.upstreamMessage, secrets));
    // A connection that failed has Node's words for it: the gateway said nothing.
    const whose = errorClass === 'network' ? 'Connection error' : 'Gateway said';
    if (said !== '') parts.push(`${whose}: "${truncate(said, MAX_UPSTREAM_MESSAGE_CHARS)}"`);
  }

  if (detail.upstreamRequestId) parts.push(`Gateway request id: ${detail.upstreamRequestId}.`);

  const errorCode = detail.errorCode ? truncate(redactSecrets(detail.errorCode, secrets), MAX_CODE_CHARS) : '';
  return {
    error: {
      message: parts.join(' '),
      type: errorClass,
      code: errorCode || errorClass,
      param: null,
      ...(detail.upstreamRequestId ? { request_id: detail.upstreamRequestId } : {}),
    },
  };
}

function causeSuffix(errorClass: ErrorClass, detail: ClientErrorDetail): string {
  const setting = TIMEOUT_SETTING[errorClass];
  if (setting && detail.timeoutMs !== undefined) return ` (${setting} = ${detail.timeoutMs} ms)`;
  if ((errorClass === 'html_instead_of_json' || errorClass === 'network') && detail.profileName && detail.baseUrl) {
    const proxy = errorClass === 'network' && detail.proxyShown ? `, through the proxy ${detail.proxyShown}` : '';
    return ` (profile "${detail.profileName}", base URL ${addressShown(detail.baseUrl)}${proxy})`;
  }
  if (
    (errorClass === 'auth' || errorClass === 'no_key' || errorClass === 'circuit_open' || errorClass === 'quota_exhausted') &&
    detail.profileName
  ) {
    return ` (profile "${detail.profileName}")`;
  }
  return '';
}

/**
 * The base URL without what a hand-edited config may hold besides the address (the window and the
 * CLI refuse them): its userinfo, query and fragment, as the URL parser the connection uses splits
 * them. A password or token there that is not the profile's key and has no key's shape passed both
 * masks, into the client's error, the row and the live events. A base URL without them is named as
 * the config spells it.
 */
function addressShown(baseUrl: string): string {
  const url = URL.parse(baseUrl);
  if (url === null) return baseUrl;
  const credentials = url.username !== '' || url.password !== '';
  if (!credentials && url.search === '' && url.hash === '') return baseUrl;
  const userinfo = credentials ? `${REDACTED}@` : '';
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${url.search === '' ? '' : `?${REDACTED}`}${url.hash === '' ? '' : `#${REDACTED}`}`;
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}
