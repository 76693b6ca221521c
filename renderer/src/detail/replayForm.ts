import { formatCredits, formatDuration } from '../common/format.ts';

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

const FORMAT_OF = {
  tokens: (size: number) => size.toLocaleString('en-US'),
  ms: formatDuration,
  credits: formatCredits,
} as const;

/** A difference with its sign, as the window writes the figure; empty when there is none or either side has no figure. */
export function signedChange(value: number | null, unit: keyof typeof FORMAT_OF): string {
  if (value === null || Math.round(value * 1e9) === 0) return '';
  return `${value > 0 ? '+' : '−'}${FORMAT_OF[unit](Math.abs(value))}`;
}
