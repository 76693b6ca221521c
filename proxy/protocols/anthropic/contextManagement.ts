import { z } from 'zod';

/**
 * Context editing runs inside Anthropic's API, before the prompt reaches the model; a chat gateway
 * has none, so every edit is dropped. An edit that would have changed nothing is dropped silently
 * (Claude Code sends one keeping all thinking on every request with thinking); any other gets a note
 * saying what was not done.
 */
export const contextManagementSchema = z.object({
  edits: z.array(z.looseObject({ type: z.string(), keep: z.unknown().optional() })).optional(),
});

type ContextEdit = NonNullable<z.output<typeof contextManagementSchema>['edits']>[number];

/** What each known edit would have done, for its note. */
const NOT_DONE: Readonly<Record<string, string>> = {
  clear_thinking_20251015: 'thinking of earlier turns was not cleared',
  clear_tool_uses_20250919: 'old tool results were not cleared',
  compact_20260112: 'the conversation was not compacted',
};

export function contextManagementNotes(contextManagement: z.output<typeof contextManagementSchema> | undefined, notes: string[]): void {
  for (const edit of contextManagement?.edits ?? []) {
    if (keepsAllThinking(edit)) continue;
    notes.push(`dropped context_management edit ${edit.type}: ${Object.hasOwn(NOT_DONE, edit.type) ? NOT_DONE[edit.type] : 'not applied'}`);
  }
}

/** Keeping every thinking turn clears nothing; without `keep` only the last turn's thinking is kept. */
function keepsAllThinking(edit: ContextEdit): boolean {
  if (edit.type !== 'clear_thinking_20251015') return false;
  const keep = edit.keep;
  return keep === 'all' || (typeof keep === 'object' && keep !== null && 'type' in keep && keep.type === 'all');
}
