// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyUpdate } from '../../../renderer/src/live/liveRows.ts';
import { LIVE_ROWS_KEPT, LiveStore } from '../../../renderer/src/live/liveStore.ts';
import { RequestList } from '../../../renderer/src/live/RequestList.tsx';

afterEach(cleanup);

describe('RequestList', () => {
  it('moves the selection with the keyboard and opens the detail with Enter', () => {
    const store = new LiveStore();
    store.addPage(
      ['a', 'b', 'c'].map((id, index) => ({
        ...applyUpdate(undefined, { requestId: id, appendText: '', fields: { startedAtMs: index } })!,
        state: 'done' as const,
      })),
    );
    store.publish();
    const onSelect = vi.fn();
    const onOpen = vi.fn();
    render(
      <RequestList
        snapshot={store.getSnapshot()}
        selectedId="c"
        onSelect={onSelect}
        onOpen={onOpen}
        onNearEnd={() => undefined}
        onFilter={vi.fn()}
        onLoadToEnd={() => undefined}
        onRowsShown={vi.fn()}
        hasMore={false}
      />,
    );
    const list = screen.getByRole('listbox');
    expect(screen.getByText('3 requests')).toBeTruthy();
    expect(list.getAttribute('aria-activedescendant')).toBe('request-c');
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    expect(onSelect).toHaveBeenLastCalledWith('b');
    fireEvent.keyDown(list, { key: 'End' });
    expect(onSelect).toHaveBeenLastCalledWith('a');
    fireEvent.keyDown(list, { key: 'Enter' });
    expect(onOpen).toHaveBeenCalledWith('c');
  });

  it('says when older rows are still in the log, and End loads them all', () => {
    const onLoadToEnd = vi.fn();
    const store = new LiveStore();
    store.addPage([{ ...applyUpdate(undefined, { requestId: 'a', appendText: '', fields: { startedAtMs: 1 } })!, state: 'done' as const }]);
    store.publish();
    render(
      <RequestList
        snapshot={store.getSnapshot()}
        selectedId={null}
        onSelect={vi.fn()}
        onOpen={vi.fn()}
        onNearEnd={() => undefined}
        onFilter={vi.fn()}
        onLoadToEnd={onLoadToEnd}
        onRowsShown={vi.fn()}
        hasMore
      />,
    );
    expect(screen.getByText('1 request loaded; scroll down or press End for older ones')).toBeTruthy();
    // End asks for every older page at once, instead of one page per press.
    fireEvent.keyDown(screen.getByRole('listbox'), { key: 'End' });
    expect(onLoadToEnd).toHaveBeenCalledTimes(1);
    expect(screen.getByText('1 request loaded; loading the older ones to reach the oldest…')).toBeTruthy();
  });

  it('says when its oldest rows moved to the log, and how to get them back', () => {
    const store = new LiveStore();
    store.reset({});
    store.addPage([]);
    for (let index = 0; index <= LIVE_ROWS_KEPT; index += 1) {
      store.applyFrame({
        requests: [{ requestId: `r${index}`, appendText: '', fields: { startedAtMs: index, state: 'done', status: 200 } }],
        status: null,
      });
    }
    store.publish();
    const onRowsShown = vi.fn();
    render(
      <RequestList
        snapshot={store.getSnapshot()}
        selectedId={null}
        onSelect={vi.fn()}
        onOpen={vi.fn()}
        onNearEnd={() => undefined}
        onFilter={vi.fn()}
        onLoadToEnd={() => undefined}
        onRowsShown={onRowsShown}
        hasMore
      />,
    );
    expect(
      screen.getByText(
        `Live keeps the newest ${LIVE_ROWS_KEPT.toLocaleString()} requests; older ones moved to the log: scroll down or press End to load them`,
      ),
    ).toBeTruthy();
  });
});

// A client retrying a refused request in a loop (a revoked token, a paused client): its refusals
// collapse into one line at the top, which the list shows, so how deep it showed grew with every
// refusal and the list kept them all.
describe('RequestList under a storm of identical refusals', () => {
  it('keeps the store bounded although the refusals show as one line', () => {
    const store = new LiveStore();
    store.reset({});
    store.addPage([]);
    const refusal = (index: number) => ({
      requestId: `refused${index}`,
      appendText: '',
      fields: { startedAtMs: index, state: 'done' as const, status: 403, errorClass: 'client_paused' as const, clientName: 'cline' },
    });
    const props = {
      selectedId: null,
      onSelect: vi.fn(),
      onOpen: vi.fn(),
      onNearEnd: () => undefined,
      onFilter: vi.fn(),
      onLoadToEnd: () => undefined,
      onRowsShown: (rows: number) => store.showRows(rows),
      hasMore: false,
    };
    store.applyFrame({ requests: [refusal(0)], status: null });
    store.publish();
    const { rerender } = render(<RequestList snapshot={store.getSnapshot()} {...props} />);
    for (let index = 1; index <= 3 * LIVE_ROWS_KEPT; index += 1) {
      store.applyFrame({ requests: [refusal(index)], status: null });
      store.publish();
      if (index % 50 === 0) rerender(<RequestList snapshot={store.getSnapshot()} {...props} />);
    }
    expect(store.getSnapshot().rows.size).toBe(LIVE_ROWS_KEPT);
  });
});
