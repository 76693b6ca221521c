/**
 * Removes secrets from text that may leave the proxy (error messages, logs). Known secrets go in
 * every form a leak could take; unknown ones are caught by their shape.
 */
export const REDACTED = '[redacted]';

/**
 * Shapes that are always a secret, in one pass: a Bearer token (the word kept, any case), an
 * sk- key, a hex run. None can overlap another's match, so one alternation equals three passes.
 */
const ALWAYS_SECRET = /\b([Bb][Ee][Aa][Rr][Ee][Rr]\s+)[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{12,}|\b[0-9a-fA-F]{32,}\b/g;
/**
 * Base64-like runs; redacted only when they look random (see looksRandom). A run only ever
 * matches from its first character, so the lookbehind changes no match; it makes each attempt
 * inside a word fail at once instead of rescanning the rest of the word.
 */
const LONG_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}/g;
/**
 * Every shape above needs the word Bearer or a run of 15+ token characters: text without either
 * (most header values, paths, model names, prose) skips the shape passes.
 */
const SHAPE_CANDIDATE = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{15}|[Bb][Ee][Aa][Rr][Ee][Rr]\s/;
const MIN_RANDOM_CHUNK = 16;

export function redactSecrets(text: string, knownSecrets: string[] = []): string {
  let result = text;
  for (const form of knownSecretForms(knownSecrets)) {
    if (result.includes(form)) result = result.replaceAll(form, REDACTED);
  }
  if (!SHAPE_CANDIDATE.test(result)) return result;
  result = result.replace(ALWAYS_SECRET, `$1${REDACTED}`);
  return result.replace(LONG_RUN, (run) => (looksRandom(run) ? REDACTED : run));
}

/** Whether any form of a known secret occurs in these bytes (text or binary: every form is ASCII). */
export function containsKnownSecret(bytes: Buffer, knownSecrets: string[]): boolean {
  return knownSecretForms(knownSecrets).some((form) => bytes.includes(form));
}

/**
 * Model ids and URL paths are long too (`deepseek-ai/DeepSeek-R1-Distill-Qwen-32B`), but made of
 * short words; a token mixes cases and digits in a long unbroken chunk.
 */
function looksRandom(run: string): boolean {
  const longestChunk = Math.max(...run.split(/[-_/]/).map((chunk) => chunk.length));
  return longestChunk >= MIN_RANDOM_CHUNK && /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run);
}

/** Callers pass the same few secret lists again and again; a handful of entries covers them. */
const MAX_CACHED_SECRET_LISTS = 8;
const formsBySecretList = new Map<string, readonly string[]>();
/**
 * The request log masks a dozen texts per request with one array; keying by the array itself
 * spares a JSON key per call. Arrays are not assumed unchanged: the contents are checked too.
 */
let lastList: { secrets: string[]; snapshot: readonly string[]; forms: readonly string[] } | null = null;

function sameEntries(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((entry, index) => entry === b[index]);
}

/** Every form of every secret, longest first (so a longer form is never cut by a shorter one), computed once per list. */
function knownSecretForms(knownSecrets: string[]): readonly string[] {
  if (knownSecrets.length === 0) return [];
  if (lastList !== null && lastList.secrets === knownSecrets && sameEntries(lastList.snapshot, knownSecrets)) return lastList.forms;
  // JSON, not a join: no two different lists share a key.
  const key = JSON.stringify(knownSecrets);
  let forms = formsBySecretList.get(key);
  if (forms === undefined) {
    forms = [...new Set(knownSecrets.flatMap(secretForms))].sort((a, b) => b.length - a.length);
    if (formsBySecretList.size >= MAX_CACHED_SECRET_LISTS) formsBySecretList.delete(formsBySecretList.keys().next().value ?? '');
    formsBySecretList.set(key, forms);
  }
  lastList = { secrets: knownSecrets, snapshot: [...knownSecrets], forms };
  return forms;
}

const MIN_BASE64_FRAGMENT = 12;

/** Raw, URL-encoded (both hex cases) and base64 / base64url at each of the three byte alignments. */
function secretForms(secret: string): string[] {
  if (secret === '') return [];
  const encoded = encodeURIComponent(secret);
  const forms = new Set([secret, encoded, encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())]);
  for (let shift = 0; shift < 3; shift += 1) {
    const base64 = Buffer.from('\0'.repeat(shift) + secret).toString('base64');
    // The first and last groups depend on the neighbouring bytes: keep the stable middle.
    const stable = base64.slice(4, -4);
    if (stable.length >= MIN_BASE64_FRAGMENT) {
      forms.add(stable);
      forms.add(stable.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...forms];
}
