import { vi } from 'vitest';

/**
 * Characters String.prototype.indexOf looked at while `run` ran: the line search is the parser's
 * work, so a count far above the input's length is a stream read again and again.
 */
export function charactersSearched(run: () => void): number {
  const indexOf = String.prototype.indexOf;
  let searched = 0;
  const spy = vi.spyOn(String.prototype, 'indexOf').mockImplementation(function (this: string, search: string, from?: number) {
    const found = indexOf.call(this, search, from);
    searched += (found === -1 ? this.length : found) - Math.max(0, from ?? 0);
    return found;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return searched;
}
