import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { LIVE_ROWS_KEPT, type LiveSnapshot } from './liveStore.ts';
import type { FilterField } from './filterForm.ts';
import { collapseRefusals, entryRequestId, type ListEntry } from './refusalGroups.ts';
import { RefusalGroupRow, RequestListHeader, RequestRow } from './RequestRow.tsx';

export const ROW_HEIGHT_PX = 32;
const PAGE_ROWS = 15;

interface RequestListProps {
  snapshot: LiveSnapshot;
  selectedId: string | null;
  onSelect: (id: string) => void;
  /** Enter on a row: move into the detail view. */
  onOpen: (id: string) => void;
  /** The user scrolled near the end: load the next (older) page. */
  onNearEnd: () => void;
  /** End was pressed while older rows are not loaded yet: load them all (the list then moves to the oldest). */
  onLoadToEnd: () => void;
  /** Older rows exist in the log beyond those loaded. */
  hasMore: boolean;
  /** The view moved: it shows rows down to this many from the top (Infinity while End heads for the oldest); the store keeps those. */
  onRowsShown: (rows: number) => void;
  onFilter: (field: FilterField, value: string) => void;
}

/** Next selected index for a navigation key, or null when the key is not a navigation key. */
export function nextIndex(key: string, current: number, count: number): number | null {
  if (count === 0) return null;
  const last = count - 1;
  switch (key) {
    case 'ArrowDown':
      return Math.min(current + 1, last);
    case 'ArrowUp':
      return Math.max(current - 1, 0);
    case 'PageDown':
      return Math.min(current + PAGE_ROWS, last);
    case 'PageUp':
      return Math.max(current - PAGE_ROWS, 0);
    case 'Home':
      return 0;
    case 'End':
      return last;
    default:
      return null;
  }
}

/** Rows from the top through the line at `lineIndex`; a group line's oldest row (its key) is the deepest it shows. */
function rowsThrough(entries: readonly ListEntry[], order: readonly string[], lineIndex: number): number {
  const line = entries[lineIndex];
  if (line === undefined) return 0;
  return order.indexOf(line.kind === 'row' ? line.id : line.key) + 1;
}

export function RequestList({
  snapshot,
  selectedId,
  onSelect,
  onOpen,
  onNearEnd,
  onLoadToEnd,
  hasMore,
  onFilter,
  onRowsShown,
}: RequestListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  /** End was pressed before the oldest row was loaded: go there once it is. */
  const [endPending, setEndPending] = useState(false);
  const { order, rows } = snapshot;
  /** Groups of identical refusals the user opened. */
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  // biome-ignore lint/correctness/useExhaustiveDependencies: the rows map is mutated in place; `snapshot.listVersion` says when its lines may have changed
  const entries = useMemo(() => collapseRefusals(order, rows, expanded), [order, snapshot.listVersion, expanded]);
  const expand = useCallback((key: string) => setExpanded((current) => new Set([...current, key])), []);
  // A new key function makes the virtualizer place every line again (each frame, 1,000 lines): new only with new lines.
  const lineKey = useCallback(
    (index: number) => {
      const entry = entries[index];
      return entry === undefined ? index : entry.kind === 'row' ? entry.id : `group:${entry.key}`;
    },
    [entries],
  );
  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT_PX,
    overscan: 12,
    getItemKey: lineKey,
  });
  const items = virtualizer.getVirtualItems();
  const lastVisible = items.at(-1)?.index ?? 0;

  // How deep the user sees, in rows, taken when the view moves (a scroll, End), never as rows come
  // or go: refusals joining a group line above the view pushed it deeper with each one, and a short
  // list's last lines came and went with the rows dropped at its end; either way it kept them all.
  const view = useRef({ entries, order, lastVisible, endPending });
  view.current = { entries, order, lastVisible, endPending };
  const scrollOffsetPx = virtualizer.scrollOffset ?? 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `scrollOffsetPx` is not read; a new one means the view moved
  useEffect(() => {
    const current = view.current;
    if (!current.endPending) onRowsShown(rowsThrough(current.entries, current.order, current.lastVisible));
  }, [scrollOffsetPx, onRowsShown]);

  // After the depth is taken: rows dropped since the view last moved are read back only once it moved (olderRowsWanted).
  useEffect(() => {
    if (entries.length > 0 && lastVisible >= entries.length - PAGE_ROWS) onNearEnd();
  }, [lastVisible, entries.length, onNearEnd]);

  useEffect(() => {
    if (!endPending || hasMore) return;
    setEndPending(false);
    const oldest = entries.at(-1);
    // The list goes to its end: every row is in view until the scroll there says how deep it shows.
    onRowsShown(order.length);
    if (oldest) {
      onSelect(entryRequestId(oldest));
      virtualizer.scrollToIndex(entries.length - 1, { align: 'auto' });
    }
  }, [endPending, hasMore, entries, order, onSelect, onRowsShown, virtualizer]);

  // -1 also when the filters hid the selected row: the list then points at no row (the detail may still show it).
  const selectedIndex =
    selectedId === null
      ? -1
      : entries.findIndex((entry) => (entry.kind === 'row' ? entry.id === selectedId : entry.ids.includes(selectedId)));
  const selectedEntry = entries[selectedIndex];
  // Only a window of rows is in the DOM, so each says where it sits; -1 is ARIA's "total unknown".
  const setSize = hasMore ? -1 : entries.length;

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Enter' && selectedEntry?.kind === 'group') {
      event.preventDefault();
      expand(selectedEntry.key);
      return;
    }
    if (event.key === 'Enter' && selectedId) {
      event.preventDefault();
      onOpen(selectedId);
      return;
    }
    const index = nextIndex(event.key, selectedIndex, entries.length);
    if (index === null) return;
    event.preventDefault();
    if (event.key === 'End' && hasMore) {
      setEndPending(true);
      // Heading for the oldest row: every row loaded on the way is kept.
      onRowsShown(Number.POSITIVE_INFINITY);
      onLoadToEnd();
    } else if (endPending) {
      setEndPending(false);
      onRowsShown(order.length);
    }
    const entry = entries[index];
    if (entry) {
      onSelect(entryRequestId(entry));
      virtualizer.scrollToIndex(index, { align: 'auto' });
    }
  };

  return (
    <div className="request-list">
      <RequestListHeader />
      <div
        ref={scrollRef}
        className="request-scroll"
        role="listbox"
        tabIndex={0}
        aria-label="Requests, newest first"
        aria-activedescendant={
          selectedEntry === undefined
            ? undefined
            : selectedEntry.kind === 'group'
              ? `request-group-${selectedEntry.key}`
              : `request-${selectedId}`
        }
        onKeyDown={onKeyDown}
      >
        <div className="request-canvas" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {items.map((item) => {
            const entry = entries[item.index];
            if (entry?.kind === 'group') {
              const newest = rows.get(entry.ids[0] as string);
              const oldest = rows.get(entry.key);
              return newest && oldest ? (
                <RefusalGroupRow
                  key={item.key}
                  groupKey={entry.key}
                  newest={newest}
                  oldest={oldest}
                  count={entry.ids.length}
                  top={item.start}
                  position={item.index + 1}
                  setSize={setSize}
                  selected={selectedEntry === entry}
                  onExpand={expand}
                />
              ) : null;
            }
            const row = entry ? rows.get(entry.id) : undefined;
            return row ? (
              <RequestRow
                key={item.key}
                row={row}
                top={item.start}
                position={item.index + 1}
                setSize={setSize}
                selected={row.id === selectedId}
                onSelect={onSelect}
                onFilter={onFilter}
              />
            ) : null;
          })}
        </div>
      </div>
      <p className="list-count muted">
        {snapshot.olderRowsMoved && !endPending
          ? `Live keeps the newest ${LIVE_ROWS_KEPT.toLocaleString()} requests; older ones moved to the log: scroll down or press End to load them`
          : `${order.length.toLocaleString()} ${order.length === 1 ? 'request' : 'requests'}${
              hasMore
                ? endPending
                  ? ' loaded; loading the older ones to reach the oldest…'
                  : ' loaded; scroll down or press End for older ones'
                : ''
            }`}
      </p>
    </div>
  );
}
