/**
 * A body's tree as shown: a list or object of more than a page of entries shows its first page and
 * controls to show more. react-json-view-lite renders a list whole (an agent's 1,788 messages were one
 * 648 ms task), so the tree is given this cut value instead of the body's.
 */

/** Entries a long list or object shows at first, and adds at each "show more". */
export const PAGE_ENTRIES = 100;

/**
 * How many entries each long list or object shows, by its path: the indexes of the entries leading
 * to it from the top, joined by "/" ("" is the body itself). Missing: its first page.
 */
export type ShownEntries = ReadonlyMap<string, number>;

/**
 * A "show more" control in the tree. react-json-view-lite renders a Date as its `toISOString()` in the
 * style's `otherValue` class, which no JSON value has: that is how a control gets into the library's
 * tree, where a click on it is read (JsonTree.tsx).
 */
export class ShowMore extends Date {
  /** The path of the list or object it belongs to (ShownEntries). */
  readonly listPath: string;
  /** How many entries that list shows once the control is used. */
  readonly shownAfter: number;
  readonly label: string;

  constructor(listPath: string, shownAfter: number, label: string) {
    super(0);
    this.listPath = listPath;
    this.shownAfter = shownAfter;
    this.label = label;
  }

  override toISOString(): string {
    return this.label;
  }
}

/** The controls after `shown` of `total` entries: the next page, and all of them when more than a page is left. */
function controlsFor(listPath: string, shown: number, total: number): ShowMore[] {
  const left = total - shown;
  if (left <= 0) return [];
  if (left <= PAGE_ENTRIES) return [new ShowMore(listPath, total, `Show ${left.toLocaleString()} more`)];
  return [
    new ShowMore(listPath, shown + PAGE_ENTRIES, `Show ${PAGE_ENTRIES} more (${left.toLocaleString()} not shown)`),
    new ShowMore(listPath, total, `Show all ${total.toLocaleString()}`),
  ];
}

/** A key for a control that none of the object's own keys is. */
function freeKey(entries: object, key: string): string {
  return Object.hasOwn(entries, key) ? freeKey(entries, `${key}…`) : key;
}

/** `value` as the tree shows it: each long list or object cut to the entries `shown` says, followed by its controls. */
export function shownTree(value: unknown, shown: ShownEntries, path = ''): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const keys = Array.isArray(value) ? null : Object.keys(value);
  const total = keys === null ? (value as unknown[]).length : keys.length;
  const count = total > PAGE_ENTRIES ? Math.min(total, shown.get(path) ?? PAGE_ENTRIES) : total;
  const entryPath = (index: number) => (path === '' ? String(index) : `${path}/${index}`);
  const controls = controlsFor(path, count, total);
  if (keys === null) {
    const list = (value as unknown[]).slice(0, count).map((entry, index) => shownTree(entry, shown, entryPath(index)));
    return [...list, ...controls];
  }
  const record = value as Record<string, unknown>;
  const cut: Record<string, unknown> = {};
  keys.slice(0, count).forEach((key, index) => {
    cut[key] = shownTree(record[key], shown, entryPath(index));
  });
  let controlKey = '…';
  for (const control of controls) {
    controlKey = freeKey(record, controlKey);
    cut[controlKey] = control;
    controlKey = `${controlKey}…`;
  }
  return cut;
}

/** The entry of a shown tree at `indexes` (each an entry's place in its list or object, as the tree lists them). */
export function shownEntryAt(tree: unknown, indexes: readonly number[]): unknown {
  let entry = tree;
  for (const index of indexes) {
    if (typeof entry !== 'object' || entry === null) return undefined;
    entry = Array.isArray(entry) ? entry[index] : Object.values(entry)[index];
  }
  return entry;
}
