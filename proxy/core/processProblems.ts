import type { NoticeKind } from '../contracts/notices.ts';
import { redactSecrets } from './redact.ts';

/** What the parts a process holds once for all its proxies find: the tokenizer and translation threads, the OS certificate store. */
export type ProcessProblemKind = Extract<NoticeKind, 'token_estimates_failed' | 'translation_failed' | 'os_certificates_unreadable'>;

type ProcessProblemListener = (kind: ProcessProblemKind, message: string) => void;

const listeners = new Set<ProcessProblemListener>();

/**
 * Said to every run that listens (startAirlock: its notices, and stderr for `airlock serve`): these
 * parts are made below app/ and know no run. With none listening (a script, a test) it goes to
 * stderr, masked by shape: no keys are known here.
 */
export function reportProcessProblem(kind: ProcessProblemKind, message: string): void {
  if (listeners.size === 0) {
    console.error(`[airlock] ${redactSecrets(message)}`);
    return;
  }
  for (const listener of [...listeners]) listener(kind, message);
}

/** Returns the function that stops listening (a run that stops). */
export function onProcessProblem(listener: ProcessProblemListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
