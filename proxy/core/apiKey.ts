import { CLIENT_TOKEN_PREFIX, CONTROL_TOKEN_PREFIX } from '../contracts/clientTokens.ts';

/**
 * Cleans a pasted gateway key. The gateway contract (docs/gateway-spec.md §5) lists what breaks auth with a 401: a doubled
 * "Bearer", a missing space, surrounding whitespace, newlines, extra quotation marks. Reasons and
 * notes describe the problem, never the key.
 */
export type CleanedKey = { ok: true; key: string; notes: string[] } | { ok: false; reason: string };

interface Cleaner {
  pattern: RegExp;
  note: string;
}

const CLEANERS: Cleaner[] = [
  { pattern: /^\s+|\s+$/g, note: 'removed surrounding whitespace or line breaks' },
  { pattern: /^["'`\u2018\u2019\u201C\u201D]+|["'`\u2018\u2019\u201C\u201D]+$/g, note: 'removed surrounding quotation marks' },
  { pattern: /^(?:export\s+)?[A-Za-z_]*(?:KEY|TOKEN)[A-Za-z0-9_]*\s*=\s*/i, note: "removed a leading 'NAME=' assignment" },
  { pattern: /^(?:authorization|x-api-key|api-key)\s*:\s*/i, note: "removed a leading header name ('Authorization:')" },
  // "Bearer" followed by a space or colon, or glued to an `sk-` key (the missing-space case).
  { pattern: /^bearer(?:\s+|\s*:\s*|(?=sk-))/i, note: "removed a leading 'Bearer '" },
];

/**
 * The longest key taken, in characters. Generated keys are 30 to 200 (OpenAI's project keys about 164, Anthropic's 108,
 * DeepSeek's 35) and a JWT used as a key a few thousand at most; past 8 KB the Authorization header no longer fits the
 * header line nginx reads by default (large_client_header_buffers 4 8k: a longer field is answered 400), so no gateway
 * behind one could take it. A 10 KB "key" was a wrong paste (a log, a file), saved and sent with every request.
 */
export const MAX_KEY_LENGTH = 4096;

/**
 * What is read as a paste at all: the key, with room for what cleaning removes around it. Bounds the cleaning's work too
 * (a trailing-whitespace pattern over megabytes of spaces backtracks for each).
 */
const MAX_PASTE_LENGTH = 4 * MAX_KEY_LENGTH;

function tooLong(length: number): CleanedKey {
  return {
    ok: false,
    reason: `The key is ${length} characters long, and a gateway key is at most ${MAX_KEY_LENGTH}: paste only the key from the gateway console.`,
  };
}

export function cleanApiKey(raw: string): CleanedKey {
  if (raw.length > MAX_PASTE_LENGTH) return tooLong(raw.trim().length);
  let key = raw;
  const notes = new Set<string>();
  // Repeat until nothing changes: pastes nest (`"Bearer Bearer sk-…"\n`).
  for (let changed = true; changed; ) {
    changed = false;
    for (const { pattern, note } of CLEANERS) {
      const next = key.replace(pattern, '');
      if (next !== key) {
        key = next;
        notes.add(note);
        changed = true;
      }
    }
  }

  if (key === '') return { ok: false, reason: 'The key is empty: paste the key from the gateway console.' };
  if (key.length > MAX_KEY_LENGTH) return tooLong(key.length);
  // The gateway's address pasted into the key field (the two fields swapped): no key holds "://".
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(key)) {
    return { ok: false, reason: 'This is an address, not a key: it goes in the base URL; paste the key from the gateway console here.' };
  }
  // Airlock's own tokens, copied from a tool's config that connect wrote (ANTHROPIC_AUTH_TOKEN=alk_…) or the window's
  // sign-in: saved as the gateway key, every request was a 401 and the token went to the gateway.
  if (key.startsWith(CONTROL_TOKEN_PREFIX) || key.startsWith(CLIENT_TOKEN_PREFIX)) {
    return {
      ok: false,
      reason: `This is one of Airlock's own tokens (${key.startsWith(CONTROL_TOKEN_PREFIX) ? CONTROL_TOKEN_PREFIX : CLIENT_TOKEN_PREFIX}…), which tools use to reach Airlock, not the gateway's key: paste the key from the gateway console.`,
    };
  }
  for (let index = 0; index < key.length; index += 1) {
    const code = key.charCodeAt(index);
    const position = `at character ${index + 1}`;
    if (/\s/.test(key[index]!)) {
      return { ok: false, reason: `The key contains a space or line break ${position}: copy it again as one piece.` };
    }
    if (code < 0x20 || code === 0x7f) {
      return { ok: false, reason: `The key contains a control character ${position}: copy it again from the console.` };
    }
    if (code > 0x7e) {
      return {
        ok: false,
        reason: `The key contains a non-ASCII character ${position} (a smart quote or look-alike letter?): copy it again from the console.`,
      };
    }
  }
  return { ok: true, key, notes: [...notes] };
}

/** The environment variable that gives `airlock serve` its gateway key for one run (app/secrets/envKeySource.ts). */
export const API_KEY_ENV_VAR = 'AIRLOCK_API_KEY';

/**
 * The environment for a program Airlock starts (an editor, a system tool): the user's, without the
 * gateway key, which is Airlock's to send and nobody else's to read.
 */
export function withoutGatewayKey(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env[API_KEY_ENV_VAR] === undefined) return env;
  const { [API_KEY_ENV_VAR]: _key, ...rest } = env;
  return rest;
}
