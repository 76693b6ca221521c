import type { TranslatedBody, TranslationJob } from './translationJob.ts';

/** Main thread → translation thread. */
export type ToTranslationThread = TranslationJob & { id: number };

/** Translation thread → main thread. */
export type FromTranslationThread = TranslatedBody & { id: number };
