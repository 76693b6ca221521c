import type { ErrorClass } from '../contracts/errors.ts';
import { CLI_COMMAND } from '../contracts/cli.ts';

/** What a failure means and what fixes it, for the client's error message and the window. */
export interface ErrorExplanation {
  /** The cause, as one sentence without a final period (details may be appended). */
  meaning: string;
  /** What to do, as full sentences. */
  fix: string;
  /** Whether trying the same request again later can succeed without changing anything. */
  retryable: boolean;
}

// Typed as a Record over every class so a class added to the contract cannot go unexplained.
/**
 * Said of an answer that broke after the gateway began it: the model ran, so the gateway may have
 * taken a fee without the full reply (gateway-spec section 7, rule 3). "May": Airlock cannot see it.
 */
const BROKEN_ANSWER_FEE =
  'the gateway may have charged for the part of the answer it sent, and a retry is a new request, which it may charge again';

const EXPLANATIONS: Record<ErrorClass, ErrorExplanation> = {
  bad_request: {
    meaning:
      'The gateway rejected the request (bad parameters, a context larger than the model allows, an endpoint it does not offer, or something this account may not do)',
    fix: 'Fix the request: check the parameters, shorten the conversation, or use an API the gateway supports. Retrying unchanged will fail again.',
    retryable: false,
  },
  auth: {
    meaning: 'The gateway refused the key (missing, incomplete, revoked, from another account, or sent in a bad header form)',
    fix: 'Paste the key again from the gateway console into Airlock. Clients keep using their Airlock token; do not retry until the key is fixed.',
    retryable: false,
  },
  model_not_found: {
    meaning:
      'The gateway does not know this model id for this account (misspelled id, a display name instead of the id, a model not open to the account, or a duplicated /v1 in the URL)',
    fix: 'List the models (GET /v1/models), copy the exact id, or add a model alias in the profile.',
    retryable: false,
  },
  rate_limited: {
    meaning: 'The gateway is limiting requests (rate or concurrency too high, or the model is busy)',
    fix: 'Lower the concurrency and retry later with backoff.',
    retryable: true,
  },
  quota_exhausted: {
    meaning: "The gateway account's balance, quota or budget is used up, so the gateway refuses every request until it is topped up",
    fix: 'Top up the balance (or raise the budget) in the gateway console, then send the request again. Retrying before that only fails again.',
    retryable: false,
  },
  upstream_error: {
    meaning:
      'The gateway got no valid answer from the model behind it (model fault, a long task past its proxy timeout, a body too large, or a protocol mismatch), or its own answer was not valid HTTP',
    fix: 'Retry once later; if it persists, compare a short non-streaming request with a streaming one and try another model.',
    retryable: true,
  },
  timeout_connect: {
    meaning: 'No connection to the gateway could be opened in time',
    fix: 'Check the network and the base URL host; raise connectTimeoutMs in the profile if the network is slow.',
    retryable: true,
  },
  timeout_idle: {
    meaning: 'The gateway stopped sending data for longer than the idle timeout (reasoning models and tool phases can pause for minutes)',
    fix: 'Raise idleTimeoutMs in the profile, or use a model that answers faster.',
    retryable: true,
  },
  timeout_total: {
    // A gateway's 504 or 524 is its own limit (Cloudflare's is 100 s without a response byte), which a
    // stream meets by answering early (community.openai.com/t/219369); totalTimeoutMs bounds streams too.
    meaning:
      "The request ran past a total time limit: Airlock's totalTimeoutMs, or the gateway's own when it (or a proxy in front of it) answered 504 or 524",
    fix: "If Airlock's limit ended it (the message names totalTimeoutMs), raise totalTimeoutMs in the profile. If the gateway timed out, stream the response (its first bytes come before the gateway's limit) or ask for a shorter answer.",
    retryable: true,
  },
  html_instead_of_json: {
    meaning:
      'The gateway address answered with a web page instead of an API response (wrong base URL or path, a reverse proxy in between, or /v1/v1 in the final URL)',
    fix: "Set the profile's base URL to the one ending in /v1 that the gateway's docs give, and point clients at Airlock without adding another /v1.",
    retryable: false,
  },
  stream_interrupted: {
    meaning: 'The response stream broke before it finished (the model, the gateway, the network or a timeout cut it)',
    fix: `Retry the request if you need the whole answer: ${BROKEN_ANSWER_FEE}. If it keeps happening, check for buffering proxies and raise idleTimeoutMs.`,
    retryable: true,
  },
  network: {
    meaning: 'The connection to the gateway failed (refused, reset, name not resolved, or TLS failure)',
    fix: 'Check the network, VPN or firewall, and the base URL host and port.',
    retryable: true,
  },
  client_unauthorized: {
    meaning: 'Airlock did not recognise the client token',
    fix: 'Set the Airlock client token (not the gateway key) as the API key in the client; copy it from the Airlock window.',
    retryable: false,
  },
  forbidden: {
    meaning: 'Airlock refused a request from a foreign web page or host name',
    fix: 'Call Airlock from a local tool at 127.0.0.1 or localhost; web pages of other sites may not use it.',
    retryable: false,
  },
  no_key: {
    meaning: 'The active profile has no gateway key stored',
    fix: 'Store the key for this profile in the Airlock window (headless: set AIRLOCK_API_KEY).',
    retryable: false,
  },
  invalid_request: {
    meaning: 'Airlock could not read the request (malformed JSON or a missing field)',
    fix: 'Send a valid JSON body with the fields the endpoint needs.',
    retryable: false,
  },
  request_too_large: {
    meaning: "The request body is larger than the profile's request body limit, so Airlock did not read or send it",
    fix: `Send a smaller request (fewer or smaller images, a shorter history), or raise the limit of the profile (window: Profiles, CLI: ${CLI_COMMAND} profile set <id> --max-body-mib <MiB>, or maxRequestBodyMiB in airlock.json).`,
    retryable: false,
  },
  budget_exceeded: {
    meaning: 'This request would go over the spending budget set in Airlock',
    fix: "Raise the cap the message names (a profile's on the Profiles screen, a client token's in airlock.json), or wait for the next period.",
    retryable: false,
  },
  unpriced_model: {
    meaning: 'This model has no price in the profile, so the spending caps set in Airlock cannot count what it costs',
    fix: "Add the model's price on the Profiles screen (0 for a model that costs nothing), or remove the caps the message names.",
    retryable: false,
  },
  client_paused: {
    meaning: 'This client token is paused in Airlock',
    fix: 'Resume the client in the Airlock window.',
    retryable: false,
  },
  circuit_open: {
    meaning: 'The gateway rejected the key, so Airlock is not sending requests with it until it is changed',
    fix: 'Set the right gateway key for the profile; forwarding resumes once the key is changed.',
    retryable: false,
  },
  keys_cooling: {
    meaning: "Every key of the profile's key pool is rate limited by the gateway (or rejected), so Airlock sent nothing",
    fix: `Retry after the time given in Retry-After, or add another key to the pool (Profiles screen, or ${CLI_COMMAND} key add <profile>).`,
    retryable: true,
  },
  proxy_paused: {
    meaning: 'Airlock is paused and forwards nothing',
    fix: "Resume Airlock from the window's status bar (or the desktop app's tray menu), then send the request again.",
    // Waiting does not unpause it, so its refusal tells clients not to retry (forward/ownRefusals.ts).
    retryable: false,
  },
  client_aborted: {
    meaning: 'The client closed the connection before the answer was complete',
    fix: 'Nothing to fix in Airlock; raise the client read timeout if it gave up too early.',
    retryable: true,
  },
  upload_stalled: {
    meaning:
      "The client was still sending its request body when the profile's total timeout or Airlock's request timeout (5 minutes to receive a whole request) ran out: the gateway did not run the request (if Airlock had begun passing the body on, it was stopped before its end)",
    fix: "Check the client's connection or what feeds its upload, then send the request again; raise the profile's total timeout if such uploads are slow on purpose.",
    retryable: true,
  },
  translation_unavailable: {
    meaning:
      "Airlock's translation thread, which translates large Messages and Responses bodies to Chat Completions, failed, so this request was not sent",
    fix: 'Restart Airlock (its output says why the thread failed), or send a smaller request, which is translated without the thread.',
    retryable: false,
  },
  proxy_stopping: {
    meaning: `Airlock was stopped (the app quit, or ${CLI_COMMAND} serve was told to stop) while this request was still running, so it was ended`,
    fix: 'Retry once Airlock runs again; a stop waits a few seconds for streams to finish before it ends them.',
    retryable: true,
  },
  ledger_incomplete: {
    meaning: 'Airlock cannot tell what this budget has spent, because spend it could not record is missing from its log',
    fix: 'If the disk where Airlock keeps its data is full, free space: the caps are checked again once the spend is recorded. Spend an earlier run could not save stands until its day or month ends; to accept that loss sooner, delete the file the message names.',
    retryable: false,
  },
  log_unreadable: {
    meaning:
      'Airlock could not read its request log, where it keeps which keyed image and video creations were already sent, so it did not send this one (it might create the task twice)',
    fix: 'Send it again later with the same idempotency key; the notices in the window or the Airlock output say why the log could not be read.',
    retryable: true,
  },
};

/**
 * An answer undici's HTTP parser refused (its codes start `HPE_`), or whose body's length is not the
 * one its Content-Length gave (undici's UND_ERR_RES_CONTENT_LENGTH_MISMATCH: the header sent twice,
 * which undici adds up, or beside chunked framing): the gateway took the whole request and answered in
 * no HTTP a client reads, so it may have run and charged it. Not a network fault, and a resend of the
 * same request pays again for an answer that will most likely be refused the same way.
 */
const INVALID_HTTP_ANSWER: ErrorExplanation = {
  meaning:
    "The gateway's answer was not valid HTTP/1.1, so Airlock could not read it (a server that writes something else among its headers or a Content-Length that is not its body's, or a service other than an HTTP server at the base URL's host and port)",
  fix: "The request reached the gateway, which may have run and charged it, so Airlock did not send it again; do not resend it unchanged. Check that the base URL's host and port are the gateway's; if they are, report the time and model to the gateway's operator.",
  retryable: false,
};

/** The name of undici's HTTP parser error, its code where it has none of llhttp's `HPE_…` (errorClass.ts). */
export const HTTP_PARSER_ERROR = 'HTTPParserError';

/** undici's code for a body whose length is not its Content-Length's (client-h1.js onMessageComplete). */
export const CONTENT_LENGTH_MISMATCH_CODE = 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH';

/** Whether a failure's code is undici refusing the answer's HTTP: its parser, or the body's length against its Content-Length. */
export function isInvalidHttpCode(code: string | null | undefined): boolean {
  return code === HTTP_PARSER_ERROR || code === CONTENT_LENGTH_MISMATCH_CODE || code?.startsWith('HPE_') === true;
}

/**
 * Airlock's code for a stream the gateway closed in order, before its answer was whole (no finish,
 * usage or end marker it owed). No timeout of Airlock's ended it, so the class's fix (raise
 * idleTimeoutMs) would send the user after the wrong setting.
 */
export const STREAM_ENDED_EARLY_CODE = 'stream_ended_early';

/** How a row's message begins for such a stream, so the window explains the row as the client's error did. */
export const STREAM_ENDED_EARLY_CAUSE = 'the gateway ended the stream';
/** How it begins for a whole JSON answer the gateway ended in order, cut short: the same failure, told by the same code. */
export const ANSWER_ENDED_EARLY_CAUSE = 'the gateway ended its answer';

const STREAM_ENDED_EARLY: ErrorExplanation = {
  meaning:
    "The gateway ended the stream or answer before it was whole, without an error (its finish, end marker or the JSON's closing bracket never came); no timeout of Airlock's ended it",
  fix: `Retry the request if you need the whole answer: ${BROKEN_ANSWER_FEE}. If long answers keep ending this way, the gateway or a proxy in front of it ends long streams: ask for a shorter answer, or report the time and model to the gateway's operator.`,
  retryable: true,
};

function endedEarly(message: string | null): boolean {
  return message !== null && (message.startsWith(STREAM_ENDED_EARLY_CAUSE) || message.startsWith(ANSWER_ENDED_EARLY_CAUSE));
}

/** Airlock's code for an HTTP proxy that refused to open a tunnel to the gateway (a 4xx: its credentials or its rules). */
export const PROXY_REFUSED_CODE = 'proxy_refused';
/** Airlock's code for an HTTP proxy that could not reach the gateway for Airlock (a 5xx to its CONNECT). */
export const PROXY_FAILED_GATEWAY_CODE = 'proxy_gateway_unreachable';
/** Airlock's code for an HTTP proxy it could not connect to (Node's code stays in the message). */
export const PROXY_UNREACHABLE_CODE = 'proxy_unreachable';
/** Airlock's code for an HTTP proxy that took the connection and did not answer its CONNECT within the connect timeout. */
export const PROXY_NO_ANSWER_CODE = 'proxy_no_answer';

const PROXY_VARIABLES = 'HTTPS_PROXY, HTTP_PROXY or ALL_PROXY';

/**
 * A gateway reached through an HTTP proxy (forward/upstreamProxy.ts) fails at the proxy in ways of its
 * own: the class's fix (the base URL, the VPN) would send the user to the wrong place.
 */
const PROXY_FAILURES: Record<string, ErrorExplanation> = {
  [PROXY_REFUSED_CODE]: {
    meaning: 'The HTTP proxy Airlock reaches the gateway through refused to connect Airlock to the gateway, so nothing was sent',
    fix: `A 407 or 401 asks for the proxy's user name and password: put them in the proxy URL (http://user:password@host:port, its special characters percent-encoded) in ${PROXY_VARIABLES} and restart Airlock. A 403 is the proxy's rules: many proxies open tunnels to port 443 alone, so use the gateway's https:// address; else ask the proxy's administrator to allow the gateway's host and port or, if the gateway can be reached without the proxy, add its host to NO_PROXY. A 3xx is the proxy's own page (a sign-in page): open any web page in a browser first.`,
    retryable: false,
  },
  [PROXY_FAILED_GATEWAY_CODE]: {
    meaning: 'The HTTP proxy Airlock reaches the gateway through could not connect to the gateway, so nothing was sent',
    fix: "Check the base URL's host and port; if they are right, the gateway is down or the proxy may not reach it: try again later, or ask the proxy's administrator.",
    retryable: true,
  },
  [PROXY_NO_ANSWER_CODE]: {
    meaning:
      'The HTTP proxy Airlock reaches the gateway through took the connection and did not answer within connectTimeoutMs, so nothing was sent',
    fix: `Check that the proxy works (a browser or curl through it); if it is only slow, raise connectTimeoutMs in the profile. A gateway that can be reached without the proxy can go in NO_PROXY.`,
    retryable: true,
  },
  [PROXY_UNREACHABLE_CODE]: {
    meaning: 'Airlock could not connect to the HTTP proxy it reaches the gateway through, so nothing was sent',
    fix: `Check that the proxy runs and that ${PROXY_VARIABLES} names it; Airlock reads them when it starts, so restart it after a change. A gateway that can be reached without the proxy can go in NO_PROXY.`,
    retryable: true,
  },
};

/** `errorCode`: the failure's code, where it says more than the class (an answer that is not HTTP, a stream closed early). */
export function explainError(errorClass: ErrorClass, errorCode?: string | null): ErrorExplanation {
  if (errorClass === 'upstream_error' && isInvalidHttpCode(errorCode)) return INVALID_HTTP_ANSWER;
  const atProxy = errorClass === 'network' || errorClass === 'timeout_connect';
  if (atProxy && errorCode != null && Object.hasOwn(PROXY_FAILURES, errorCode)) return PROXY_FAILURES[errorCode]!;
  if (errorClass === 'stream_interrupted' && errorCode === STREAM_ENDED_EARLY_CODE) return STREAM_ENDED_EARLY;
  return EXPLANATIONS[errorClass];
}

/**
 * Hints for the gateway statuses of a refused request whose fix is specific. The 403's never holds
 * "Cloudflare" and "blocked" together: Codex shows a 403 whose body has both only as "Access blocked
 * by Cloudflare … restricted region", dropping the cause and what the gateway said
 * (codex-rs/core/src/error.rs, UnexpectedResponseError::friendly_message).
 */
export const BAD_REQUEST_STATUS_HINTS: Record<number, string> = {
  403: 'The gateway, or a firewall in front of it (a Cloudflare block page or "Access denied" page), refused this request: the key may not be allowed this model or API, or it may block your network, country or VPN, the client\'s HTTP signature, or words in the request. Read what the gateway said; try from another network or without the VPN, or ask the gateway\'s operator what the key may use; the base URL is not the cause.',
  404: 'The gateway has no endpoint at this path: check the path and that the gateway offers this API.',
  // A POST where the gateway routes none: OpenRouter answers 405 with no body for an API it lacks (chatboxai/chatbox#1486).
  405: 'The gateway takes no such request at this path (405 Method Not Allowed): it does not offer this API, or not with this method. Check the path and that the gateway offers this API; if chat works through this profile, its base URL is right.',
  413: 'The request body is over the size limit of the gateway (or a proxy in front of it): send a smaller request, or check the size limit the gateway documents.',
};

/** The keychain has not answered yet (proxy/app/targetResolver.ts: a 503 with Retry-After, not the 403 of a missing key). */
const KEYCHAIN_NOT_ANSWERING: ErrorExplanation = {
  meaning:
    "The OS keychain had not yet given Airlock the profile's gateway key (an unlock prompt may be open, or the keyring is locked), so nothing was sent",
  fix: 'Answer the keychain prompt or unlock the keyring: Airlock reads the key again, and a retry after the Retry-After it gave goes through. Setting the key again would meet the same keychain.',
  retryable: true,
};

/** Idempotency-key refusals (proxy/spend/idempotencyCache.ts): 422 another request under the key, 409 a first whose answer cannot be given. */
const IDEMPOTENCY_REFUSALS: Record<number, ErrorExplanation> = {
  422: {
    meaning: 'This idempotency key was already used for a different request (another body or path), so Airlock sent nothing',
    fix: 'Use a new idempotency key for a new request, or send the first request unchanged to get its answer.',
    retryable: false,
  },
  409: {
    meaning:
      'A request with this idempotency key was already sent (or Airlock could not check), and its answer cannot be given, so Airlock did not send it again and create the task twice',
    fix: 'The message above says what became of the first request: check the gateway for the task, repeat with the same idempotency key later if the first is still running, or use a new idempotency key to create a new task.',
    retryable: false,
  },
};

/**
 * The explanation of a request that failed with `status`: some classes hold refusals of different
 * causes, which their status tells apart, and the class alone would contradict the refusal's message.
 */
export function explainErrorAt(
  errorClass: ErrorClass,
  status: number | null,
  message: string | null = null,
  errorCode: string | null = null,
): ErrorExplanation {
  if (errorCode !== null) {
    const byCode = explainError(errorClass, errorCode);
    if (byCode !== EXPLANATIONS[errorClass]) return byCode;
  }
  // Rows written before the log kept the code (migration 16) tell the early end by their message only.
  if (errorClass === 'stream_interrupted' && errorCode === null && endedEarly(message)) return STREAM_ENDED_EARLY;
  const explained = EXPLANATIONS[errorClass];
  if (status === null) return explained;
  if (errorClass === 'no_key' && status === 503) return KEYCHAIN_NOT_ANSWERING;
  if (errorClass === 'invalid_request') return IDEMPOTENCY_REFUSALS[status] ?? explained;
  const hint = errorClass === 'bad_request' ? BAD_REQUEST_STATUS_HINTS[status] : undefined;
  return hint ? { ...explained, fix: hint } : explained;
}
