import { CONFIG_FILE_NAME, CONFIG_REVISION, type ConfigFile } from '../../contracts/config.ts';
import { isRecord } from '../../core/isRecord.ts';

export type FieldPath = readonly (string | number)[];

/**
 * Fields of an `airlock.json` a newer Airlock wrote (its `configRevision` is above this one's): after a
 * roll-back they are kept, unused, as VS Code keeps a setting no installed extension declares (shown
 * as unknown, never deleted: microsoft/vscode#33931). Refused as misspelt fields, they took every
 * setting away (each tool's token refused) until the user deleted the newer version's settings.
 */
export interface NewerFields {
  revision: number;
  /** The file as read, where each path's value is found again at a save. */
  raw: unknown;
  paths: readonly FieldPath[];
}

/** The newer fields of a file holding `unknown` fields this Airlock does not know; null when they may be misspelt. */
export function newerFieldsOf(raw: unknown, unknown: readonly FieldPath[]): NewerFields | null {
  if (unknown.length === 0 || !isRecord(raw) || typeof raw.configRevision !== 'number') return null;
  return raw.configRevision > CONFIG_REVISION ? { revision: raw.configRevision, raw, paths: unknown } : null;
}

const NAMED_FIELDS = 5;

export function newerFieldsNotice(newer: NewerFields, formatPath: (path: FieldPath) => string): string {
  const named = newer.paths.slice(0, NAMED_FIELDS).map(formatPath).join(', ');
  const more = newer.paths.length > NAMED_FIELDS ? ` and ${newer.paths.length - NAMED_FIELDS} more` : '';
  return (
    `${CONFIG_FILE_NAME} holds settings of a newer Airlock (revision ${newer.revision}; this one knows ${CONFIG_REVISION}) ` +
    `that this one does not use: ${named}${more}. They stay in the file through every change made here; the other settings are in use.`
  );
}

/**
 * What a save writes: `config`, with the revision it holds fields of (never lowered: the newer
 * fields stay), and each newer field put back where an edit kept its object (found as `counterpart`
 * says, as edits may remove or reorder them; one removed takes its fields with it).
 */
export function fileTreeOf(config: ConfigFile, newer: NewerFields | null): ConfigFile {
  const revision = Math.max(config.configRevision ?? 1, newer?.revision ?? 1, CONFIG_REVISION);
  const tree: ConfigFile = structuredClone(revision > 1 ? { ...config, configRevision: revision } : config);
  for (const fieldPath of newer?.paths ?? []) restore(tree, newer?.raw, fieldPath);
  return tree;
}

function restore(tree: unknown, raw: unknown, fieldPath: FieldPath): void {
  let from = raw;
  let to = tree;
  for (const segment of fieldPath.slice(0, -1)) {
    if (typeof segment === 'number') {
      const item: unknown = Array.isArray(from) ? from[segment] : undefined;
      to = Array.isArray(to) ? counterpart(to, item, segment) : undefined;
      from = item;
    } else {
      from = isRecord(from) ? from[segment] : undefined;
      to = isRecord(to) ? to[segment] : undefined;
    }
  }
  const key = fieldPath.at(-1);
  if (typeof key === 'string' && isRecord(from) && isRecord(to) && !Object.hasOwn(to, key)) to[key] = from[key];
}

/**
 * The item an edit kept in place of `item`: by its id or name where it has one, else by what names
 * it in its list (a price's model, a route's pattern, a fallback's profile and model), else at its
 * position. By position, a price removed before it gave its newer fields (a discount) to the next model.
 */
function counterpart(items: unknown[], item: unknown, index: number): unknown {
  if (!isRecord(item)) return items[index];
  for (const key of ['id', 'name']) {
    if (typeof item[key] === 'string') return items.find((other) => isRecord(other) && other[key] === item[key]);
  }
  const naming = ['pattern', 'model', 'profileId'].filter((key) => typeof item[key] === 'string');
  if (naming.length === 0) return items[index];
  return items.find((other) => isRecord(other) && naming.every((key) => other[key] === item[key]));
}
