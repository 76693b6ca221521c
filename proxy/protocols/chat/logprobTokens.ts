import type { KeyMasker } from '../../core/keyMasker.ts';
import { isRecord } from '../../core/isRecord.ts';
import { REDACTED } from '../../core/redact.ts';

type Json = Record<string, unknown>;

/**
 * A chat answer's logprobs list each token of its text (`content`, `refusal`) with the token's
 * UTF-8 `bytes` and its likeliest alternatives: joined, the tokens are the text again, and a key the
 * text holds is in no one token for the body's masking to find. Where the joined tokens hold it, the
 * tokens it spans are masked as the text is (the first carries the mask), their bytes made theirs
 * again, and their alternatives dropped (the token itself is among them). True if any changed.
 */
export function maskLogprobTokens(answer: object, masker: KeyMasker): boolean {
  const choices = (answer as Json).choices;
  if (!Array.isArray(choices)) return false;
  let changed = false;
  for (const choice of choices) {
    if (!isRecord(choice) || !isRecord(choice.logprobs)) continue;
    for (const list of [choice.logprobs.content, choice.logprobs.refusal]) {
      if (Array.isArray(list) && maskTokens(list, (joined) => masker.maskedSpans(joined))) changed = true;
    }
  }
  return changed;
}

/** Masks the tokens the spans of their joined text cover (see maskLogprobTokens); true if any changed. */
export function maskTokens(entries: unknown[], spansOf: (joined: string) => Array<{ from: number; to: number }>): boolean {
  const tokens = tokensOf(entries);
  const joined = tokens.join('');
  const spans = spansOf(joined);
  if (spans.length === 0) return false;
  let tokenFrom = 0;
  tokens.forEach((token, position) => {
    const tokenTo = tokenFrom + token.length;
    const overlapping = spans.filter((span) => span.from < tokenTo && tokenFrom < span.to);
    if (overlapping.length > 0) {
      let masked = '';
      let copiedUpTo = tokenFrom;
      for (const span of overlapping) {
        masked += joined.slice(copiedUpTo, Math.max(copiedUpTo, span.from));
        if (span.from >= tokenFrom) masked += REDACTED;
        copiedUpTo = Math.min(tokenTo, span.to);
      }
      rewriteEntry(entries[position] as Json, masked + joined.slice(copiedUpTo, tokenTo));
    }
    tokenFrom = tokenTo;
  });
  return true;
}

/** The token of each entry, '' where an entry has none. */
export function tokensOf(entries: readonly unknown[]): string[] {
  return entries.map((entry) => (isRecord(entry) && typeof entry.token === 'string' ? entry.token : ''));
}

/** The entries, a run of half the key or more that the stream ended on masked: the first token carries the mask. */
export function maskedIfLongRun(entries: unknown[], masker: KeyMasker): boolean {
  if (entries.length === 0 || !masker.isLongRun(tokensOf(entries).join(''))) return false;
  entries.forEach((entry, position) => {
    if (isRecord(entry)) rewriteEntry(entry, position === 0 ? REDACTED : '');
  });
  return true;
}

function rewriteEntry(entry: Json, token: string): void {
  entry.token = token;
  if (Array.isArray(entry.bytes)) entry.bytes = [...new TextEncoder().encode(token)];
  if (Array.isArray(entry.top_logprobs)) entry.top_logprobs = [];
}
