import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { LiveSnapshot } from './liveStore.ts';
import type { FilterField } from './filterForm.ts';
import { RequestListHeader, RequestRow } from './RequestRow.tsx';

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

export function RequestList({ snapshot, selectedId, onSelect, onOpen, onNearEnd, onLoadToEnd, hasMore, onFilter }: RequestListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  /** End was pressed before the oldest row was loaded: go there once it is. */
  const [endPending, setEndPending] = useState(false);
  const { order, rows } = snapshot;
  const virtualizer = useVirtualizer({
    count: order.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT_PX,
    overscan: 12,
    getItemKey: (index) => order[index] ?? index,
  });
  const items = virtualizer.getVirtualItems();
  const lastVisible = items.at(-1)?.index ?? 0;

  useEffect(() => {
    if (order.length > 0 && lastVisible >= order.length - PAGE_ROWS) onNearEnd();
  }, [lastVisible, order.length, onNearEnd]);

  useEffect(() => {
    if (!endPending || hasMore) return;
    setEndPending(false);
    const oldest = order.at(-1);
    if (oldest) {
      onSelect(oldest);
      virtualizer.scrollToIndex(order.length - 1, { align: 'auto' });
    }
  }, [endPending, hasMore, order, onSelect, virtualizer]);

  // -1 also when the filters hid the selected row: the list then points at no row (the detail may still show it).
  const selectedIndex = selectedId === null ? -1 : order.indexOf(selectedId);
  // Only a window of rows is in the DOM, so each says where it sits; -1 is ARIA's "total unknown".
  const setSize = hasMore ? -1 : order.length;

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Enter' && selectedId) {
      event.preventDefault();
      onOpen(selectedId);
      return;
    }
    const index = nextIndex(event.key, selectedIndex, order.length);
    if (index === null) return;
    event.preventDefault();
    if (event.key === 'End' && hasMore) {
      setEndPending(true);
      onLoadToEnd();
    } else setEndPending(false);
    const id = order[index];
    if (id) {
      onSelect(id);
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
        aria-activedescendant={selectedIndex >= 0 ? `request-${selectedId}` : undefined}
        onKeyDown={onKeyDown}
      >
        <div className="request-canvas" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {items.map((item) => {
            const row = rows.get(order[item.index] as string);
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
        {order.length.toLocaleString()} {order.length === 1 ? 'request' : 'requests'}
        {hasMore
          ? endPending
            ? ' loaded; loading the older ones to reach the oldest…'
            : ' loaded; scroll down or press End for older ones'
          : ''}
      </p>
    </div>
  );
}
