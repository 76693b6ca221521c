/**
 * Removes secrets from text that may leave the proxy (error messages, logs). Known secrets go in
 * every form a leak could take; unknown ones are caught by their shape.
 */
export const REDACTED = '[redacted]';

const SECRET_SHAPES: Array<{ pattern: RegExp; replacement: string }> = [
  { pattern: /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, replacement: `$1${REDACTED}` },
  { pattern: /\bsk-[A-Za-z0-9_-]{12,}/g, replacement: REDACTED },
  { pattern: /\b[0-9a-f]{32,}\b/gi, replacement: REDACTED },
];
/** Base64-like runs; redacted only when they look random (see looksRandom). */
const LONG_RUN = /[A-Za-z0-9+/_-]{32,}={0,2}/g;
const MIN_RANDOM_CHUNK = 16;

export function redactSecrets(text: string, knownSecrets: string[] = []): string {
  let result = text;
  const forms = knownSecrets.flatMap(secretForms).sort((a, b) => b.length - a.length);
  for (const form of forms) result = result.split(form).join(REDACTED);
  for (const { pattern, replacement } of SECRET_SHAPES) result = result.replace(pattern, replacement);
  return result.replace(LONG_RUN, (run) => (looksRandom(run) ? REDACTED : run));
}

/**
 * Model ids and URL paths are long too (`deepseek-ai/DeepSeek-R1-Distill-Qwen-32B`), but made of
 * short words; a token mixes cases and digits in a long unbroken chunk.
 */
function looksRandom(run: string): boolean {
  const longestChunk = Math.max(...run.split(/[-_/]/).map((chunk) => chunk.length));
  return longestChunk >= MIN_RANDOM_CHUNK && /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9]/.test(run);
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
