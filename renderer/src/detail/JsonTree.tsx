import { type KeyboardEvent, memo, type MouseEvent, useEffect, useMemo, useRef, useState } from 'react';
import { defaultStyles, JsonView } from 'react-json-view-lite';
import { matchRanges } from './Highlighted.tsx';
import { PAGE_ENTRIES, ShowMore, type ShownEntries, shownEntryAt, shownTree } from './treePages.ts';

/** The class of a "show more" control: the library's `otherValue`, which no JSON value has (treePages.ts). */
const SHOW_MORE_CLASS = 'json-more';

/** The library's layout classes, with colours of our own so both themes keep their contrast. */
const JSON_STYLES = {
  ...defaultStyles,
  container: 'json-tree',
  label: 'json-key',
  clickableLabel: 'json-key json-clickable',
  stringValue: 'json-string',
  numberValue: 'json-number',
  booleanValue: 'json-literal',
  nullValue: 'json-literal',
  undefinedValue: 'json-literal',
  otherValue: SHOW_MORE_CLASS,
  punctuation: 'json-punctuation',
};

/**
 * The tree opens its first three levels, but no list or object of more than a page: an agent's
 * history is thousands of messages, and its first page of each still costs a render; a click opens it.
 */
const expandFirstLevels = (level: number, value: object): boolean =>
  level < 3 && (Array.isArray(value) ? value.length : Object.keys(value).length) <= PAGE_ENTRIES;

/** A tree item's place in the tree: its index in each list or object from the top (the library's ARIA tree: item, group, item). */
function itemIndexes(item: Element): number[] {
  const indexes: number[] = [];
  for (let at = item; at.parentElement?.getAttribute('role') === 'group'; ) {
    const group = at.parentElement;
    indexes.unshift(Array.prototype.indexOf.call(group.children, at));
    const owner = group.parentElement;
    if (owner === null) break;
    at = owner;
  }
  return indexes;
}

/** Gives each "show more" control a button's role, so it is named, reached by the tree's arrow keys and read as one. */
function markControls(container: Element): void {
  for (const control of container.querySelectorAll(`.${SHOW_MORE_CLASS}:not([role])`)) {
    control.setAttribute('role', 'button');
    control.setAttribute('tabindex', '-1');
  }
}

/** The CSS highlight that marks the search in the trees (styles.css, `::highlight`). */
const SEARCH_HIGHLIGHT = 'body-search';

/** The search's matches in each open tree: one highlight holds them all. */
const searchMarks = new Map<Element, Range[]>();

function showSearchMarks(): void {
  // happy-dom has no CSS highlights; Chromium has them since 105.
  if (typeof CSS === 'undefined' || CSS.highlights === undefined) return;
  const marks = new Highlight();
  for (const ranges of searchMarks.values()) for (const range of ranges) marks.add(range);
  CSS.highlights.set(SEARCH_HIGHLIGHT, marks);
}

/**
 * Marks `needle` in the text a tree shows. The library renders its text itself, so the matches are
 * marked where they are rendered (CSS Custom Highlight API) rather than by rewriting the text.
 */
function markSearch(container: Element, needle: string): void {
  const ranges: Range[] = [];
  if (needle.trim() !== '') {
    const texts = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
    for (let text = texts.nextNode(); text !== null; text = texts.nextNode()) {
      for (const [start, end] of matchRanges(text.textContent ?? '', needle)) {
        const range = document.createRange();
        range.setStart(text, start);
        range.setEnd(text, end);
        ranges.push(range);
      }
    }
  }
  if (ranges.length === 0 && !searchMarks.has(container)) return;
  if (ranges.length === 0) searchMarks.delete(container);
  else searchMarks.set(container, ranges);
  showSearchMarks();
}

/** The library's tree, rendered again only when the shown value changes (not for a search). */
const LibraryTree = memo(function LibraryTree({ tree }: { tree: object }) {
  return <JsonView data={tree} style={JSON_STYLES} shouldExpandNode={expandFirstLevels} clickToExpandNode />;
});

/**
 * A body's JSON tree, a page of entries at a time, the search (`highlight`) marked in what it shows.
 * Memoised, and the library's part on the shown value alone: react-json-view-lite sets every node open
 * or closed again whenever it renders with another `shouldExpandNode`, which closed what the user had
 * opened (a search typed while the tree is open, the detail read again). Showing more keeps each shown
 * entry at its place, so the library keeps what the user opened in it.
 */
export const JsonTree = memo(function JsonTree({ json, highlight }: { json: object; highlight: string }) {
  const [shown, setShown] = useState<ShownEntries>(new Map());
  const tree = useMemo(() => shownTree(json, shown) as object, [json, shown]);
  const containerRef = useRef<HTMLDivElement>(null);
  const highlightRef = useRef(highlight);

  // The library renders the controls and the text, and renders again by itself when a node is opened.
  useEffect(() => {
    const container = containerRef.current;
    if (container === null) return;
    const marked = () => {
      markControls(container);
      markSearch(container, highlightRef.current);
    };
    marked();
    const observer = new MutationObserver(marked);
    observer.observe(container, { childList: true, subtree: true, characterData: true });
    return () => {
      observer.disconnect();
      markSearch(container, '');
    };
  }, []);
  useEffect(() => {
    highlightRef.current = highlight;
    if (containerRef.current !== null) markSearch(containerRef.current, highlight);
  }, [highlight]);

  // A control used from the keyboard goes as its entries come: focus moves to the first of them, once rendered.
  const focusNext = useRef<{ list: Element; index: number } | null>(null);
  useEffect(() => {
    const next = focusNext.current;
    focusNext.current = null;
    const container = containerRef.current;
    if (next === null || container === null) return;
    markControls(container);
    const target = [...next.list.children].slice(next.index).flatMap((entry) => entry.querySelector('[role="button"]') ?? [])[0];
    if (!(target instanceof HTMLElement)) return;
    // The library's roving tab stop: one button of the tree takes Tab.
    for (const button of container.querySelectorAll<HTMLElement>('[role="button"][tabindex="0"]')) button.tabIndex = -1;
    target.tabIndex = 0;
    target.focus();
  });

  /** Shows more of a list when `target` is one of its controls; whether it was. */
  const showMore = (target: EventTarget, byKeyboard: boolean): boolean => {
    const item = target instanceof Element ? target.closest(`.${SHOW_MORE_CLASS}`)?.closest('[role="treeitem"]') : null;
    const control = item ? shownEntryAt(tree, itemIndexes(item)) : null;
    if (!item?.parentElement || !(control instanceof ShowMore)) return false;
    if (byKeyboard) focusNext.current = { list: item.parentElement, index: [...item.parentElement.children].indexOf(item) };
    setShown((current) => new Map(current).set(control.listPath, control.shownAfter));
    return true;
  };
  const onClick = (event: MouseEvent) => showMore(event.target, false);
  const onKeyDown = (event: KeyboardEvent) => {
    if ((event.key === 'Enter' || event.key === ' ') && showMore(event.target, true)) event.preventDefault();
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the controls inside are buttons (markControls); the library renders them, so their events are read here
    <div ref={containerRef} onClick={onClick} onKeyDown={onKeyDown}>
      <LibraryTree tree={tree} />
    </div>
  );
});
