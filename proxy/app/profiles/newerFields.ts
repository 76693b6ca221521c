import { isDeepStrictEqual } from 'node:util';
import { CONFIG_FILE_NAME, CONFIG_REVISION, configFileSchema, type ConfigFile } from '../../contracts/config.ts';
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
  /** Fields this Airlock knows, holding a value it refuses (set aside: withNewerValuesAside). */
  values: readonly NewerValue[];
}

/**
 * A newer Airlock may take more in a field than this one: an enum value it added (a fourth protocol
 * mode), a bound it raised (a longer timeout). Refused, that value took the whole file away as an
 * unknown field did. In a file of a later revision it is set aside instead: the field is used at
 * `inUse`, this Airlock's default, and the file's value is put back at a save unless an edit here
 * changed the field.
 */
export interface NewerValue {
  path: FieldPath;
  inUse: unknown;
}

/**
 * The file's revision when it is a later one; null otherwise. Only a whole number is one an Airlock
 * writes (the schema's own rule): 1.5 or 1e20, typed by hand, made a misspelt field a "newer" one, and
 * 1e400 (read as Infinity) was saved as null, after which the file no longer loaded.
 */
export function laterRevision(raw: unknown): number | null {
  if (!isRecord(raw)) return null;
  const revision = raw.configRevision;
  return typeof revision === 'number' && Number.isSafeInteger(revision) && revision > CONFIG_REVISION ? revision : null;
}

/** The newer fields and values of a file; null when there are none or the file is of this revision (they may be mistakes). */
export function newerFieldsOf(
  raw: unknown,
  unknown: readonly FieldPath[],
  values: readonly FieldPath[] = [],
  parsed?: ConfigFile,
): NewerFields | null {
  const revision = laterRevision(raw);
  if (revision === null || unknown.length + values.length === 0) return null;
  return { revision, raw, paths: unknown, values: values.map((path) => ({ path, inUse: valueAt(parsed, path) })) };
}

/**
 * Fields that price or cap spend: a value of theirs this Airlock refuses is never swapped for its
 * default, which can be far looser (a newer bound's priceMultiplier of 5000 run at 1 counted a 5000th
 * of the spend, so no cap came; `prices` in a newer shape run as none): the file is refused, naming
 * it, as before set-aside values. Burst limits are not among them: their default is itself a limit.
 */
const SPEND_FIELDS = new Set(['budget', 'prices', 'priceMultiplier']);

/** At most this many rounds of refused values set aside: each round is a parse of the whole file. */
const MAX_SET_ASIDE_ROUNDS = 16;

/**
 * `raw`, a file of a later revision that the schema refuses, parsed with each refused value of a field
 * that has a default taken out (NewerValue); null where that does not make it parse (a required field,
 * or a file of this revision, whose refused values are mistakes to name), or leaves a field with no
 * default unset: such a field's absence is no setting of its own but the lack of one (a cap, a price),
 * and a daily cap of 0 or a tiered price a newer Airlock takes, left out, had the profile spend uncapped
 * or unpriced for the whole roll-back.
 */
export function withNewerValuesAside(raw: unknown): { config: ConfigFile; values: FieldPath[] } | null {
  if (laterRevision(raw) === null) return null;
  const copy: unknown = structuredClone(raw);
  const values: FieldPath[] = [];
  for (let round = 0; round < MAX_SET_ASIDE_ROUNDS; round += 1) {
    const parsed = configFileSchema.safeParse(copy);
    if (parsed.success) return values.every((path) => valueAt(parsed.data, path) !== undefined) ? { config: parsed.data, values } : null;
    let removed = false;
    for (const issue of parsed.error.issues) {
      const key = issue.path.at(-1);
      const parent = valueAt(copy, issue.path.slice(0, -1) as FieldPath);
      if (issue.path.some((segment) => typeof segment === 'string' && SPEND_FIELDS.has(segment))) return null;
      if (typeof key !== 'string' || !isRecord(parent) || !Object.hasOwn(parent, key)) continue;
      delete parent[key];
      values.push(issue.path as FieldPath);
      removed = true;
    }
    if (!removed) return null;
  }
  return null;
}

function valueAt(value: unknown, path: FieldPath): unknown {
  let at = value;
  for (const segment of path) at = Array.isArray(at) || isRecord(at) ? (at as Record<string, unknown>)[segment] : undefined;
  return at;
}

const NAMED_FIELDS = 5;

export function newerFieldsNotice(newer: NewerFields, formatPath: (path: FieldPath) => string): string {
  const all = [...newer.paths, ...newer.values.map((value) => value.path)];
  const named = all.slice(0, NAMED_FIELDS).map(formatPath).join(', ');
  const more = all.length > NAMED_FIELDS ? ` and ${all.length - NAMED_FIELDS} more` : '';
  const defaults = newer.values.length > 0 ? ' (a value this one does not take is used as its default here)' : '';
  return (
    `${CONFIG_FILE_NAME} holds settings of a newer Airlock (revision ${newer.revision}; this one knows ${CONFIG_REVISION}) ` +
    `that this one does not use: ${named}${more}${defaults}. They stay in the file through every change made here; the other settings are in use.`
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
  for (const value of newer?.values ?? []) restore(tree, newer?.raw, value.path, { inUse: value.inUse });
  return tree;
}

/** Puts the file's value at `fieldPath` back: where the tree lacks it, or, for a value set aside, where it still holds `inUse`. */
function restore(tree: unknown, raw: unknown, fieldPath: FieldPath, setAside?: { inUse: unknown }): void {
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
  if (typeof key !== 'string' || !isRecord(from) || !isRecord(to) || !Object.hasOwn(from, key)) return;
  const unedited = setAside === undefined ? !Object.hasOwn(to, key) : isDeepStrictEqual(to[key], setAside.inUse);
  if (unedited) to[key] = from[key];
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
