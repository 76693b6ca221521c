import { LOCAL_ERROR_CLASSES } from '../../../proxy/contracts/errors.ts';
import type { LiveRow } from './liveRows.ts';

/** One line of the Live list: a request, or a run of identical refusals shown as one. */
export type ListEntry = { kind: 'row'; id: string } | { kind: 'group'; key: string; ids: string[] };

/** Fewer identical refusals in a row read fine one by one. */
export const MIN_GROUP_SIZE = 3;

const LOCAL = new Set<string>(LOCAL_ERROR_CLASSES);

/** What makes refusals "identical": Airlock's own refusal class, status and client. null for anything else. */
function refusalSignature(row: LiveRow | undefined): string | null {
  if (!row || row.errorClass === null || !LOCAL.has(row.errorClass)) return null;
  return `${row.errorClass}\u0000${row.status ?? ''}\u0000${row.clientName ?? ''}`;
}

/**
 * The list's lines for `order` (newest first): every run of at least MIN_GROUP_SIZE identical
 * refusals becomes one group line unless its key is in `expanded`. A group's key is its oldest
 * request, which new refusals arriving on top do not change.
 */
export function collapseRefusals(order: readonly string[], rows: ReadonlyMap<string, LiveRow>, expanded: ReadonlySet<string>): ListEntry[] {
  const entries: ListEntry[] = [];
  let run: string[] = [];
  let runSignature: string | null = null;
  const closeRun = () => {
    const key = run.at(-1);
    if (key !== undefined && run.length >= MIN_GROUP_SIZE && !expanded.has(key)) entries.push({ kind: 'group', key, ids: run });
    else for (const id of run) entries.push({ kind: 'row', id });
    run = [];
  };
  for (const id of order) {
    const signature = refusalSignature(rows.get(id));
    if (signature === null || signature !== runSignature) closeRun();
    runSignature = signature;
    if (signature === null) entries.push({ kind: 'row', id });
    else run.push(id);
  }
  closeRun();
  return entries;
}

/** The request a line stands for when selected: the row, or a group's newest refusal. */
export function entryRequestId(entry: ListEntry): string {
  return entry.kind === 'row' ? entry.id : (entry.ids[0] as string);
}
