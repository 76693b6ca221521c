/**
 * Headers sent with every trace export, for collectors that authenticate (Honeycomb's
 * `x-honeycomb-team`, Grafana Cloud's `Authorization: Basic …`, New Relic's `api-key`, Datadog's
 * `dd-api-key`). Their values are secrets: they live in the OS keychain, airlock.json holds only
 * the names, and the control API answers with names and last four characters. Shared by the
 * control API, the CLI and the window.
 */

/** More would be a mistake; hosted collectors take one or two. */
export const MAX_TRACE_HEADERS = 16;
/** Collectors cap a request's whole header block at about 8 KiB; one value past it cannot work. */
export const MAX_TRACE_HEADER_VALUE_CHARS = 8 * 1024;

/** RFC 9110 §5.6.2 token: the characters a field name may have. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * Fields the HTTP client or the OTLP exporter sets for the request itself: a second value would
 * break the framing or the encoding, or be overwritten unseen.
 */
const SET_BY_THE_EXPORTER = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'user-agent',
]);
/**
 * What Node's HTTP client refuses in a field value (it throws at send time): control characters
 * other than tab, and anything past Latin-1. CR, LF and NUL are named on their own below.
 */
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Field names are case-insensitive (RFC 9110 §5.1): one spelling, lowercase (as HTTP/2 sends
 * them), so `Authorization` and `authorization` are one header with one keychain entry.
 */
export function normalizeTraceHeaderName(name: string): string {
  return name.trim().toLowerCase();
}

/** Why a (normalized) name cannot be a header, or null. */
export function traceHeaderNameProblem(name: string): string | null {
  if (name === '') return 'give the header name, such as x-honeycomb-team';
  if (!TOKEN.test(name)) return `"${name}" is not a header name: use letters, digits and !#$%&'*+-.^_\`|~, no spaces or colons`;
  if (SET_BY_THE_EXPORTER.has(name)) return `"${name}" is set by the exporter for each request; it cannot be given`;
  return null;
}

/**
 * The value as sent: leading and trailing whitespace is not part of a field value (RFC 9110 §5.5),
 * and a value piped in ends with a newline.
 */
export function cleanTraceHeaderValue(value: string): string {
  return value.trim();
}

/** Why a (cleaned) value cannot be sent, or null. Never quotes the value: it is a secret. */
export function traceHeaderValueProblem(value: string): string | null {
  if (value === '') return 'the value is empty';
  if (/[\r\n]/.test(value)) return 'the value holds a line break (CR or LF); give it on one line';
  if (value.includes('\0')) return 'the value holds a NUL character';
  if (value.length > MAX_TRACE_HEADER_VALUE_CHARS) return `the value is longer than ${MAX_TRACE_HEADER_VALUE_CHARS} characters`;
  if (UNSENDABLE.test(value)) return 'the value holds a control character or a character HTTP headers cannot carry (past Latin-1)';
  return null;
}

/** One header as the window and the CLI see it: never its value. */
export interface TraceExportHeaderView {
  name: string;
  /** The keychain holds a value for it (false: named in airlock.json but no value could be read). */
  set: boolean;
  /** The value's last four characters, null when not set or too short to show any. */
  lastFour: string | null;
}

/** GET/PUT /settings/trace-export and the header routes answer this. */
export interface TraceExportView {
  otlpEndpoint: string | null;
  headers: TraceExportHeaderView[];
  /** Why header values could not be read (no keychain), or null. */
  headersProblem: string | null;
}

/** PUT /settings/trace-export/headers: sets one header's value (adding the header if new). */
export interface TraceExportHeaderWrite {
  name: string;
  value: string;
}
