/**
 * A choice's finish_reason, or null while it is unfinished. Ollama (ollama#4357), sglang
 * (sglang#3912) and Sensenova (axonhub#2073) send `""` on every unfinished chunk instead of null:
 * an empty reason is no finish.
 */
export function finishReasonOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
