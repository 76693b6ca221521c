import { formatCredits } from '../../../proxy/contracts/amounts.ts';

/** Why the edited body cannot be sent, checked before it leaves the window; null when it can. */
export function editedBodyProblem(body: string, contentType: string | null): string | null {
  if (body.trim() === '' || (contentType !== null && !/\bjson\b/i.test(contentType))) return null;
  try {
    JSON.parse(body);
    return null;
  } catch (error) {
    return `The body is not valid JSON (${(error as Error).message}). Correct it, then send the replay.`;
  }
}

/** A difference with its sign and unit; empty when there is none or either side has no figure. */
export function signedChange(value: number | null, unit: 'tokens' | 'ms' | 'credits'): string {
  if (value === null || value === 0) return '';
  const sign = value > 0 ? '+' : '−';
  const size = Math.abs(value);
  if (unit === 'credits') return `${sign}${formatCredits(size)}`;
  return `${sign}${size.toLocaleString('en-US')}${unit === 'ms' ? ' ms' : ''}`;
}
