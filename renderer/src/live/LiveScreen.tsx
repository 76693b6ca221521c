import { runningReplayOf } from '../detail/replayForm.ts';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { Group, Panel, Separator } from 'react-resizable-panels';
import type { FirstRunSteps } from '../../../proxy/contracts/status.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { useDebounced } from '../common/useDebounced.ts';
import { useRequestIdInHash } from '../common/useHashRoute.ts';
import { RequestDetailPanel } from '../detail/RequestDetailPanel.tsx';
import { ExportButtons } from '../export/ExportButtons.tsx';
import { FirstRun } from '../status/FirstRun.tsx';
import { useAsync } from '../common/useAsync.ts';
import { FacetMenus } from './FacetMenus.tsx';
import { FilterBar } from './FilterBar.tsx';
import { EMPTY_FILTER_FORM, type FilterField, filtersFromForm, type FilterForm } from './filterForm.ts';
import type { LiveStore } from './liveStore.ts';
import { RequestList } from './RequestList.tsx';
import { useRequestPages } from './useRequestPages.ts';

interface LiveScreenProps {
  store: LiveStore;
  proxyUrl: string;
  firstRun: FirstRunSteps | null;
}

export function LiveScreen({ store, proxyUrl, firstRun }: LiveScreenProps) {
  const api = useApi();
  const [form, setForm] = useState<FilterForm>(EMPTY_FILTER_FORM);
  const settledForm = useDebounced(form, 250);
  const filters = useMemo(() => filtersFromForm(settledForm, Date.now()), [settledForm]);
  const pages = useRequestPages(api, store, filters);
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const [selectedId, setSelectedId] = useRequestIdInHash();
  const detailRef = useRef<HTMLElement>(null);
  const listFocusRef = useRef<HTMLDivElement>(null);

  const filtered = JSON.stringify(filters) !== '{}';
  // Stable, as `onSelect` is: every list row takes it, and a new one would render every row again at each frame.
  const filterBy = useCallback(
    (field: FilterField | keyof FilterForm, value: string) => setForm((current) => ({ ...current, [field]: value })),
    [],
  );
  // Counted again when the filters change, when a page's worth of rows came live (the list's length
  // stops at LIVE_ROWS_KEPT) and once when Airlock is back (requests ran unseen); not for the pages
  // read from the log, which the counts held already. By the store's filters: keyed by the form's, a
  // new search was counted with the last list's count and again once the list started over; keyed by
  // the rows taken in since the last reset, the first page of a list and each older page counted them
  // again, and a return counted them only past 200 rows (each read 1-2 s of the proxy's forwarding
  // thread on a 100,000-row log).
  const listFilters = snapshot.filters;
  const facets = useAsync(
    () => api.requestFacets(listFilters),
    `${JSON.stringify(listFilters)}:${Math.floor(snapshot.rowsCameLive / 200)}`,
    { readAgainWhenBack: true },
  );
  const showRows = useCallback((rows: number) => store.showRows(rows), [store]);
  // Off the Live screen the list shows nothing: only the newest rows are kept.
  useEffect(() => () => showRows(0), [showRows]);
  const empty = snapshot.order.length === 0;

  return (
    <div className="live">
      <FilterBar form={form} onChange={setForm} />
      {facets.kind === 'ready' && <FacetMenus facets={facets.value} form={form} onPick={filterBy} />}
      <Group orientation="horizontal" className="live-body">
        <Panel id="requests" minSize={300} className="live-list-panel">
          <div className="live-list" ref={listFocusRef}>
            {pages.kind === 'error' && <ErrorState error={pages.error} onRetry={pages.retry} />}
            {pages.kind === 'loading' && empty && <Loading what="requests" />}
            {pages.kind === 'idle' &&
              empty &&
              (filtered ? <p className="state state-empty">No request matches these filters.</p> : <FirstRun steps={firstRun} />)}
            {!empty && (
              <RequestList
                snapshot={snapshot}
                selectedId={selectedId}
                onSelect={setSelectedId}
                onOpen={() => detailRef.current?.focus()}
                onNearEnd={pages.loadMore}
                onLoadToEnd={pages.loadToEnd}
                onFilter={filterBy}
                onRowsShown={showRows}
                hasMore={pages.kind === 'idle' ? pages.hasMore || snapshot.olderRowsMoved : true}
              />
            )}
          </div>
        </Panel>
        {selectedId && (
          <>
            <Separator className="split-handle" aria-label="Resize the list and the detail" />
            <Panel id="detail" defaultSize="40" minSize={300} className="detail-panel">
              <RequestDetailPanel
                ref={detailRef}
                key={selectedId}
                requestId={selectedId}
                highlight={settledForm.text}
                onFilter={filterBy}
                liveRow={snapshot.rows.get(selectedId)}
                runningReplay={runningReplayOf(snapshot, selectedId)}
                proxyUrl={proxyUrl}
                onClose={() => {
                  setSelectedId(null);
                  listFocusRef.current?.querySelector<HTMLElement>('[role="listbox"]')?.focus();
                }}
              />
            </Panel>
          </>
        )}
      </Group>
      <ExportButtons kind="requests" filters={filters} />
    </div>
  );
}
