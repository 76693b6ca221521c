import { createTwoFilesPatch } from 'diff';
import type { ConnectFileChange } from '../../contracts/connect.ts';
import { redactSecrets } from '../../core/redact.ts';

/** A secret and what a preview shows instead of it. */
export interface SecretLabel {
  secret: string;
  label: string;
}

/** Replaces every secret with its label, the longest first so a key containing another is masked whole. */
export function masker(labels: readonly SecretLabel[]): (text: string) => string {
  const ordered = [...labels].filter((entry) => entry.secret.length > 0).sort((a, b) => b.secret.length - a.secret.length);
  return (text) => ordered.reduce((masked, entry) => masked.split(entry.secret).join(entry.label), text);
}

/**
 * The unified diff of one file (jsdiff), with secrets masked before it leaves the service: the
 * known ones by their labels, then any other by its shape (a Bearer token, an sk- key, a long random
 * run), as the log masks them: a key can sit under a name that does not say so (a custom header).
 */
export function fileChange(filePath: string, before: string | null, after: string, mask: (text: string) => string): ConnectFileChange {
  const unchanged = before === after;
  return {
    path: filePath,
    created: before === null,
    // jsdiff heads the patch with an `Index:` line and a rule, which say nothing the ---/+++ lines do not.
    diff: unchanged
      ? ''
      : redactSecrets(
          mask(
            createTwoFilesPatch(filePath, filePath, before ?? '', after, 'now', 'after Airlock', { context: 3 }).replace(
              /^Index: .*\n=+\n/,
              '',
            ),
          ),
        ),
  };
}
