/**
 * A gateway key that must never be seen outside the keychain and the upstream Authorization
 * header. Tests search every output, file and response for it (and its encodings).
 */
export const SENTINEL_KEY = 'sk-airlock-SENTINEL-7f3a9c2e5b8d41f6a0c3e9b7d2f5a8c1';

/** The forms a leak could take: raw, URL-encoded, base64 (at each alignment) and the Bearer header. */
export function sentinelForms(key: string = SENTINEL_KEY): string[] {
  const forms = new Set<string>([key, encodeURIComponent(key), `Bearer ${key}`]);
  for (let shift = 0; shift < 3; shift += 1) {
    const padded = 'x'.repeat(shift) + key;
    const encoded = Buffer.from(padded).toString('base64');
    // Drop the characters that depend on the prefix or padding: the middle is stable.
    const stable = encoded.slice(Math.ceil((shift * 4) / 3) + 2, -4);
    if (stable.length >= 16) forms.add(stable);
  }
  return [...forms];
}

/**
 * The text as whoever reads it in its place would: percent escapes undone (a URL, RFC 3986 section
 * 2.1), JSON's `\uXXXX` and `\/` (RFC 8259 section 7), and HTML character references (WHATWG HTML
 * section 13.5). Written here apart from Airlock's own masking, so a test does not share its blind spots.
 */
function unescaped(text: string): string {
  return text
    .replace(/%([0-9a-fA-F]{2})/g, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\\u([0-9a-fA-F]{4})/g, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replaceAll('\\/', '/')
    .replace(/&#[xX]([0-9a-fA-F]+);?/g, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/&#([0-9]+);?/g, (_escape, decimal: string) => String.fromCharCode(Number.parseInt(decimal, 10)));
}

/** The first form of the key the text holds as written, or once its escapes are undone; null if none. */
export function findSentinel(haystack: string | Buffer, key: string = SENTINEL_KEY): string | null {
  const text = typeof haystack === 'string' ? haystack : haystack.toString('latin1');
  const reading = unescaped(text);
  return sentinelForms(key).find((form) => text.includes(form) || reading.includes(form)) ?? null;
}

/**
 * The texts a client assembles from an event stream: every string in the events' JSON, joined
 * across events per JSON path (`choices.0.delta.content`, `delta.text`, …). A key streamed a few
 * characters a delta is in none of the events, only in these.
 */
export function assembledStreamTexts(eventStream: string): string[] {
  const byPath = new Map<string, string>();
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') byPath.set(path, (byPath.get(path) ?? '') + value);
    else if (typeof value === 'object' && value !== null) for (const [key, child] of Object.entries(value)) walk(child, `${path}.${key}`);
  };
  for (const line of eventStream.split('\n')) {
    if (!line.startsWith('data:')) continue;
    try {
      walk(JSON.parse(line.slice('data:'.length)), '');
    } catch {
      // [DONE] and other non-JSON data carry no text to assemble.
    }
  }
  return [...byPath.values()];
}

/** A leak in the stream as sent or in any text a client would assemble from it. */
export function findSentinelInStream(eventStream: string, key: string = SENTINEL_KEY): string | null {
  return (
    findSentinel(eventStream, key) ??
    assembledStreamTexts(eventStream)
      .map((text) => findSentinel(text, key))
      .find((found) => found !== null) ??
    null
  );
}

/**
 * A leak in what a client reads by parsing JSON and then the JSON strings inside it (a tool call's
 * `arguments`): each string is searched as its reader sees it, escapes undone once more, so a key
 * written with escapes twice over (`\\u002d` in the answer's text) is found. `text` is one JSON
 * document or an event stream of them.
 */
export function findSentinelInNestedJson(text: string, key: string = SENTINEL_KEY): string | null {
  const documents = text.trimStart().startsWith('{')
    ? [text]
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice('data:'.length));
  const pending: unknown[] = documents.map(parsedOrNull);
  for (let value = pending.pop(); pending.length > 0 || value !== undefined; value = pending.pop()) {
    if (typeof value === 'string') {
      const found = findSentinel(value, key);
      if (found !== null) return found;
      pending.push(parsedOrNull(value));
    } else if (typeof value === 'object' && value !== null) {
      pending.push(...Object.values(value));
    }
  }
  return null;
}

function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A second key, for a key pool: both must be masked wherever one would be. Its last four differ from the first's. */
export const SECOND_SENTINEL_KEY = 'sk-airlock-SENTINEL-2b61e8d04c7f93a5e1d6b0c8f4a27e9d';

/**
 * A trace collector's API key (sent as a trace export header): kept in the keychain and sent to the
 * collector only, never in a log row, stderr, airlock.json or a control API answer. 22 characters,
 * as a Honeycomb ingest key is: too short and too plain for the masking of random-looking runs, so
 * only knowing it masks it.
 */
export const TRACE_HEADER_SENTINEL = 'hcSENTINELtraceHdr7Q2x';
