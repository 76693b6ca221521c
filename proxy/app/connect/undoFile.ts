import { redactSecrets } from '../../core/redact.ts';
import { withoutAirlockEdits } from './laterEdits.ts';
import { type SettingConflict, undoSettings } from './settingsUndo.ts';
import { ConnectError, holdsSecret, type ToolAdapter } from './toolAdapter.ts';

export interface FileToUndo {
  adapter: ToolAdapter;
  /** The file's role in the adapter (`config`, `env`); undefined for a file the adapter no longer names. */
  role: string | undefined;
  filePath: string;
  /** The text before the setup (null: the file did not exist), what Airlock wrote, and the text now. */
  before: string | null;
  written: string;
  current: string;
  proxyUrl: string;
  /** Where the backup's copies are, for a user who must finish by hand. */
  backupFolder: string;
}

/**
 * The text undo leaves in a file changed since Airlock wrote it (null: delete the file Airlock
 * created), or a ConnectError saying what stops it and what to do. A format the adapter reads as
 * settings is undone setting by setting; any other file by taking Airlock's lines out.
 */
export function undoneText(file: FileToUndo): string | null {
  const format = file.role === undefined ? undefined : file.adapter.settingsFormats?.[file.role];
  let text: string;
  if (format) {
    const undone = undoSettings(format, file.before, file.written, file.current);
    if ('conflicts' in undone) throw conflictError(file, undone.conflicts);
    text = undone.text;
    if (file.before === null && Object.keys(format.parse(text)).length === 0) return null;
  } else {
    const merged = withoutAirlockEdits(file.before, file.written, file.current);
    if (merged === null || !toolCanRead(file, merged)) throw changedError(file);
    text = merged;
  }
  return file.before === null && text.trim() === '' ? null : text;
}

/** A line merge can leave a file its tool cannot read; that is refused rather than written. */
function toolCanRead(file: FileToUndo, text: string): boolean {
  if (file.role === undefined) return true;
  try {
    file.adapter.airlockToken({ [file.role]: text }, file.proxyUrl);
    return true;
  } catch {
    return false;
  }
}

function changedError(file: FileToUndo): ConnectError {
  return new ConnectError(
    'conflict',
    `${file.filePath} changed after Airlock wrote it, so undo would lose those changes: restore it by hand from ${file.backupFolder}.`,
  );
}

function conflictError(file: FileToUndo, conflicts: readonly SettingConflict[]): ConnectError {
  const names = conflicts.map((conflict) => conflict.path.join('.'));
  return new ConnectError(
    'conflict',
    `${file.filePath}: ${conflicts.map(describe).join('; ')}. Undo puts back only the settings Airlock changed and would overwrite ${names.length === 1 ? 'that change' : 'those changes'}, so nothing was changed. To undo, set ${names.join(', ')} back to what Airlock wrote or to your own ${names.length === 1 ? 'value' : 'values'} from before (the file as it was is in ${file.backupFolder}), then undo again.`,
  );
}

function describe(conflict: SettingConflict): string {
  const name = conflict.path.join('.');
  const shown = (value: unknown) => shownValue(conflict.path.at(-1) ?? '', value);
  if (conflict.written === undefined) return `${name} was set again after Airlock removed it`;
  if (conflict.now === undefined) return `${name} was removed after Airlock set it to ${shown(conflict.written)}`;
  return `${name} was changed after Airlock set it to ${shown(conflict.written)} (it is now ${shown(conflict.now)})`;
}

const MAX_SHOWN_CHARACTERS = 80;

/** A value for an error message: a token or key by its last four characters only, any other secret by its shape. */
function shownValue(name: string, value: unknown): string {
  if (typeof value === 'string' && holdsSecret(name, value)) return `a secret ending in ${value.slice(-4)}`;
  const text = redactSecrets(JSON.stringify(value));
  return text.length > MAX_SHOWN_CHARACTERS ? `${text.slice(0, MAX_SHOWN_CHARACTERS)}…` : text;
}
