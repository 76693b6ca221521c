import { applyPatch, structuredPatch } from 'diff';

/**
 * The file as it would be had Airlock never written it, keeping what changed since: the lines
 * Airlock changed (`written` against `before`) are changed back in `current`, a line merge like
 * git's. Null when a later edit touched those lines (or their neighbours), so undo must refuse.
 * The tools do edit these files after a setup: Codex records each directory the user trusts in
 * config.toml (codex-rs config/edit.rs, SetProjectTrustLevel).
 */
export function withoutAirlockEdits(before: string | null, written: string, current: string): string | null {
  const reverse = structuredPatch('written', 'before', written, before ?? '', undefined, undefined, { context: 3 });
  // One neighbouring line may differ (the user edited next to Airlock's lines); the lines taken out must match exactly.
  const merged = applyPatch(current, reverse, { fuzzFactor: 1 });
  return merged === false ? null : merged;
}
