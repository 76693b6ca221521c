import { useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { FirstRunSteps } from '../../../proxy/contracts/api.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { useDebounced } from '../common/useDebounced.ts';
import { RequestDetailPanel } from '../detail/RequestDetailPanel.tsx';
import { ExportButtons } from '../export/ExportButtons.tsx';
import { FirstRun } from '../status/FirstRun.tsx';
import { FilterBar } from './FilterBar.tsx';
import { EMPTY_FILTER_FORM, filtersFromForm, type FilterForm } from './filterForm.ts';
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
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const detailRef = useRef<HTMLElement>(null);
  const listFocusRef = useRef<HTMLDivElement>(null);

  const filtered = JSON.stringify(filters) !== '{}';
  const empty = snapshot.order.length === 0;

  return (
    <div className="live">
      <FilterBar form={form} onChange={setForm} />
      <div className={`live-body${selectedId ? ' with-detail' : ''}`}>
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
              hasMore={pages.kind === 'idle' ? pages.hasMore : true}
            />
          )}
        </div>
        {selectedId && (
          <RequestDetailPanel
            ref={detailRef}
            key={selectedId}
            requestId={selectedId}
            liveRow={snapshot.rows.get(selectedId)}
            proxyUrl={proxyUrl}
            onClose={() => {
              setSelectedId(null);
              listFocusRef.current?.querySelector<HTMLElement>('[role="listbox"]')?.focus();
            }}
          />
        )}
      </div>
      <ExportButtons kind="requests" filters={filters} />
    </div>
  );
}
