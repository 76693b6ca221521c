import { isBase64Code } from './base64Alphabet.ts';
import { holdsEscapedForm, replaceEscapedForms } from './escapedSecrets.ts';
/**
 * Removes secrets from text that may leave the proxy (error messages, logs). Known secrets go in
 * every form a leak could take; unknown ones are caught by their shape.
 */
export const REDACTED = '[redacted]';

/**
 * Shapes that are always a secret, in one pass: a Bearer token (the word kept, any case), an
 * sk- key, a hex run with a letter in it (digits alone are a number: a random 32-character hex key
 * is all digits 3 times in 10 million, while a model writes long numbers, which were masked in the
 * log). None can overlap another's match, so one alternation equals three passes.
 */
const ALWAYS_SECRET =
  /\b([Bb][Ee][Aa][Rr][Ee][Rr]\s+)[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{12,}|\b(?=[0-9]*[a-fA-F])[0-9a-fA-F]{32,}\b/g;
/** The word Bearer before a token: the one shape that needs no long run of token characters. */
const BEARER_WORD = /[Bb][Ee][Aa][Rr][Ee][Rr]\s/;
/** An sk- key is the only shape of fewer than MIN_LONG_RUN characters: `sk-` and 12 more. */
const MIN_SHAPE_RUN = 15;
const MIN_LONG_RUN = 32;
const MIN_RANDOM_CHUNK = 16;

/** Characters of a base64-like run (the sk- key and hex classes are subsets of them). */
const isRunChar = isBase64Code;
const EQUALS = 0x3d;
const MAX_PADDING = 2;

/**
 * The longest run of base64 characters, counted up to MIN_LONG_RUN. One plain pass: the shape
 * regexes took 2-5 us each on a 300-character chat answer, and most texts hold no run long enough
 * for them to match at all.
 */
function longestRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let index = 0; index < text.length && longest < MIN_LONG_RUN; index += 1) {
    run = isRunChar(text.charCodeAt(index)) ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/**
 * Replaces each base64-like run of MIN_LONG_RUN or more (with up to two `=` of padding) that looks
 * random (see looksRandom). A plain scan: the regex for it, with the lookbehind that kept it from
 * rescanning words, took 4 ms on a 180 KB agent request, against about 0.3 ms.
 */
function redactRandomRuns(text: string): string {
  let redacted = '';
  let copiedUpTo = 0;
  let index = 0;
  while (index < text.length) {
    if (!isRunChar(text.charCodeAt(index))) {
      index += 1;
      continue;
    }
    const runStart = index;
    while (index < text.length && isRunChar(text.charCodeAt(index))) index += 1;
    if (index - runStart < MIN_LONG_RUN) continue;
    const runEnd = index;
    while (index < text.length && index - runEnd < MAX_PADDING && text.charCodeAt(index) === EQUALS) index += 1;
    if (!looksRandom(text.slice(runStart, index))) continue;
    redacted += text.slice(copiedUpTo, runStart) + REDACTED;
    copiedUpTo = index;
  }
  return copiedUpTo === 0 ? text : redacted + text.slice(copiedUpTo);
}

/**
 * Only the known secrets, in every form, and nothing by shape: for values whose long random runs
 * are not secrets but what a reader needs (a gateway's request id, which support looks up).
 */
export function redactKnownSecrets(text: string, knownSecrets: string[]): string {
  return replaceSecretForms(text, knownSecretForms(knownSecrets));
}

/**
 * Every form replaced in the order given (knownSecretForms': longest first, so a longer form is
 * never cut by a shorter one), by the word or by what `replacementOf` makes of the text it
 * replaces; then every form a reader would see once the text's escapes are undone (escapedSecrets.ts).
 */
export function replaceSecretForms(text: string, forms: readonly string[], replacementOf?: (replaced: string) => string): string {
  let result = text;
  for (const form of forms) if (result.includes(form)) result = result.replaceAll(form, replacementOf?.(form) ?? REDACTED);
  return replaceEscapedForms(result, forms, replacementOf ?? (() => REDACTED));
}

export function redactSecrets(text: string, knownSecrets: string[] = []): string {
  let result = redactKnownSecrets(text, knownSecrets);
  // Redacting only shortens runs, so the run measured here bounds the runs the passes below see.
  const longest = longestRun(result);
  const mayHoldShape = longest >= MIN_LONG_RUN || (longest >= MIN_SHAPE_RUN && result.includes('sk-')) || BEARER_WORD.test(result);
  if (mayHoldShape) result = result.replace(ALWAYS_SECRET, `$1${REDACTED}`);
  return longest < MIN_LONG_RUN ? result : redactRandomRuns(result);
}

/**
 * Whether redactSecrets leaves every one of `texts` as it is, in one pass over them joined by a
 * newline: a row's dozen short fields cost a dozen calls otherwise, and almost none holds a secret.
 * Sound because a newline is in no shape's run and ends a word, so whatever one text alone would
 * have replaced is replaced in the joined text too; a false alarm (a match across the join, such
 * as "Bearer" ending one text) only sends the caller to mask each text.
 */
export function redactsNone(texts: readonly string[], knownSecrets: string[]): boolean {
  const joined = texts.join('\n');
  return redactSecrets(joined, knownSecrets) === joined;
}

/** Whether any form of a known secret occurs in these bytes, also escaped (text or binary: every form is ASCII). */
export function containsKnownSecret(bytes: Buffer, knownSecrets: string[]): boolean {
  const forms = knownSecretForms(knownSecrets);
  // Forms are ASCII: in latin1 text of bytes they read as they do in the bytes.
  return forms.some((form) => bytes.includes(form)) || holdsEscapedForm(bytes.toString('latin1'), forms);
}

/**
 * Model ids and URL paths are long too (`deepseek-ai/DeepSeek-R1-Distill-Qwen-32B`), but made of
 * words; a token mixes cases and digits in a long unbroken chunk. A long chunk of one kind of
 * character is a word (`togethercomputer/RedPajama-INCITE-7B-Instruct`, a Together AI model, was
 * masked whole and refused as a model id): a random chunk of 16 base64 characters is all lowercase
 * about 6 times in 10 million. So are capitalised words written together (CAPITALISED_WORDS). No chunk is let off for its form (a time stamp): a token can hold one
 * between its dashes. The notice board keeps the names of files Airlock moved aside readable itself
 * (noticeBoard.ts).
 */
function looksRandom(run: string): boolean {
  const mixedChunk = run
    .split(/[-_/]/)
    .some((chunk) => chunk.length >= MIN_RANDOM_CHUNK && characterKinds(chunk) >= 2 && !CAPITALISED_WORDS.test(chunk));
  return mixedChunk && /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run);
}

/**
 * Words written together, each a capital and two or more small letters: a Hugging Face organisation as a hosted model id
 * keeps it (`FreedomIntelligence/HuatuoGPT-o1-8B`, `MarinaraSpaghetti/NemoMix-Unleashed-12B`: Featherless serves its
 * 22,000 repos by these ids, featherless.ai/docs/quickstart-guide), masked whole and refused as a model id. A random
 * alphanumeric chunk has this form about 8 times in 100,000 at 16 characters and 3 in 100 million at 32; the keys Airlock
 * holds are masked by their value whatever their form.
 */
const CAPITALISED_WORDS = /^(?:[A-Z][a-z]{2,})+$/;

function characterKinds(chunk: string): number {
  return Number(/[a-z]/.test(chunk)) + Number(/[A-Z]/.test(chunk)) + Number(/[0-9]/.test(chunk));
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
export function knownSecretForms(knownSecrets: string[]): readonly string[] {
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

/**
 * Raw, URL-encoded (both hex cases), with `/` escaped as JSON may write it (PHP's json_encode does
 * by default), and base64 / base64url at each of the three byte alignments.
 */
function secretForms(secret: string): string[] {
  if (secret === '') return [];
  const encoded = encodeURIComponent(secret);
  const forms = new Set([secret, encoded, encoded.replace(/%[0-9A-F]{2}/g, (hexEscape) => hexEscape.toLowerCase())]);
  if (secret.includes('/')) forms.add(secret.replaceAll('/', '\\/'));
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
