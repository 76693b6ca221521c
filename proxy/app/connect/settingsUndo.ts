import { isDeepStrictEqual } from 'node:util';
import { isRecord } from '../../core/isRecord.ts';

/**
 * A config format read as a tree of settings and edited one setting at a path, keeping the rest of
 * the text (comments, order, indentation) as it is.
 */
export interface SettingsFormat {
  /** The file's settings; throws ConnectFileError when the text does not parse. */
  parse(text: string | null): Record<string, unknown>;
  /** The text with the setting at `path` set to `value`, or removed when it is undefined. */
  edit(text: string, path: readonly string[], value: unknown): string;
}

/** One setting Airlock changed: what it was (undefined: absent) and what Airlock wrote (undefined: removed). */
export interface SettingChange {
  path: string[];
  before: unknown;
  written: unknown;
}

/** A setting Airlock changed that someone changed again since: undo would overwrite their change. */
export interface SettingConflict extends SettingChange {
  now: unknown;
}

export type SettingsUndo = { text: string } | { conflicts: SettingConflict[] };

/**
 * The file with the settings Airlock changed put back as they were, everything changed since kept.
 * The tools rewrite their files while they run (Claude Code saves a permission the user approved or
 * the model they picked by writing the whole settings.json again, comments and layout gone), so
 * lines cannot be matched: settings can. A setting whose value is neither what Airlock wrote nor
 * what it was before was changed since by someone else, and is a conflict.
 */
export function undoSettings(format: SettingsFormat, before: string | null, written: string, current: string): SettingsUndo {
  const beforeTree = format.parse(before);
  const changes = changedSettings(beforeTree, format.parse(written), []);
  const currentTree = format.parse(current);
  const conflicts: SettingConflict[] = [];
  const toRestore: SettingChange[] = [];
  for (const change of changes) {
    const now = valueAt(currentTree, change.path);
    if (isDeepStrictEqual(now, change.written)) toRestore.push(change);
    else if (!isDeepStrictEqual(now, change.before)) conflicts.push({ ...change, now });
  }
  if (conflicts.length > 0) return { conflicts };
  let text = current;
  for (const change of toRestore) text = format.edit(text, change.path, change.before);
  // A section Airlock created (Claude Code's `env`, OpenCode's `provider`) goes too once it is empty.
  for (const change of toRestore) {
    for (let depth = change.path.length - 1; depth > 0; depth -= 1) {
      const section = change.path.slice(0, depth);
      if (valueAt(beforeTree, section) !== undefined) break;
      const left = valueAt(format.parse(text), section);
      if (isRecord(left) && Object.keys(left).length === 0) text = format.edit(text, section, undefined);
    }
  }
  return { text };
}

/** The settings that differ, as leaves: a section Airlock added is compared setting by setting. */
function changedSettings(before: unknown, written: unknown, at: string[]): SettingChange[] {
  const bothSections = (isRecord(before) || before === undefined) && (isRecord(written) || written === undefined);
  if (bothSections && (isRecord(before) || isRecord(written))) {
    const beforeSection = (before ?? {}) as Record<string, unknown>;
    const writtenSection = (written ?? {}) as Record<string, unknown>;
    const names = new Set([...Object.keys(beforeSection), ...Object.keys(writtenSection)]);
    return [...names].flatMap((name) => changedSettings(beforeSection[name], writtenSection[name], [...at, name]));
  }
  return isDeepStrictEqual(before, written) ? [] : [{ path: at, before, written }];
}

function valueAt(tree: unknown, path: readonly string[]): unknown {
  let node = tree;
  for (const name of path) {
    if (!isRecord(node)) return undefined;
    node = node[name];
  }
  return node;
}
