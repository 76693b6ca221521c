import { distance } from 'fastest-levenshtein';

/**
 * The ids from the gateway's model list closest to a requested one, for "Did you mean" hints.
 * Compared without case and separators (`GPT 4o`, `gpt_4o`, `gpt-4o` are equal); an id that
 * contains the request or is contained in it ranks before one that is only a few edits away.
 */
export function closestModelIds(requested: string, available: string[], limit = 3): string[] {
  const wanted = comparable(requested);
  if (wanted === '' || limit <= 0) return [];
  const scored = [...new Set(available)]
    .map((id) => ({ id, ...score(wanted, comparable(id)) }))
    .filter((candidate) => candidate.tier !== null)
    .sort((a, b) => a.tier! - b.tier! || a.distance - b.distance || a.id.localeCompare(b.id));
  return scored.slice(0, limit).map((candidate) => candidate.id);
}

/** Beyond this share of the longer id changed, two ids are unrelated and suggesting one is noise. */
const MAX_EDIT_RATIO = 0.5;

function score(wanted: string, candidate: string): { tier: number | null; distance: number } {
  if (candidate === '') return { tier: null, distance: 0 };
  const edits = distance(wanted, candidate);
  if (edits === 0) return { tier: 0, distance: 0 };
  if (candidate.includes(wanted) || wanted.includes(candidate)) return { tier: 1, distance: edits };
  const related = edits <= Math.ceil(Math.max(wanted.length, candidate.length) * MAX_EDIT_RATIO);
  return { tier: related ? 2 : null, distance: edits };
}

function comparable(id: string): string {
  return id.toLowerCase().replace(/[\s\-_./:]+/g, '');
}
