import { useId, useState } from 'react';
import { typedNumber } from '../../../proxy/contracts/amounts.ts';
import { NO_PRICE_MULTIPLIER, type ModelPrice } from '../../../proxy/contracts/profile.ts';
import type { PriceFormat, PriceTable } from '../../../proxy/contracts/profileViews.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { useAsync } from '../common/useAsync.ts';
import { DecimalInput, PriceRows } from './PriceRows.tsx';
import { BusyButton } from '../common/BusyButton.tsx';

/** The profile's price table: edit in place, or import/export as JSON or CSV. */
export function PriceEditor({ profileId }: { profileId: string }) {
  const api = useApi();
  const loaded = useAsync(() => api.prices(profileId), profileId);
  const multiplierId = useId();
  // The table as last read or saved, and what the user changed of it: a save sends only that, as
  // the profile form saves the multiplier too and another writer may have changed it meanwhile.
  const [savedTable, setSavedTable] = useState<PriceTable | null>(null);
  const [draft, setDraft] = useState<Partial<PriceTable> | null>(null);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [format, setFormat] = useState<PriceFormat>('csv');
  const [exchange, setExchange] = useState('');
  // A cell or the multiplier holding text that is no number: the draft still has its last number, so Save waits.
  const [unreadable, setUnreadable] = useState({ cells: false, multiplier: false });
  // Counts tables read from the proxy (a save, an import): the cells are drawn afresh from each, so a refused text an
  // import replaced no longer holds Save back (its refusal stayed, with no cell left holding the text).
  const [tableGeneration, setTableGeneration] = useState(0);

  if (loaded.kind === 'loading') return <Loading what="prices" />;
  if (loaded.kind === 'error') return <ErrorState error={loaded.error} onRetry={loaded.reload} />;
  const table: PriceTable = { ...(savedTable ?? loaded.value), ...draft };

  const act = async (action: () => Promise<PriceTable | string>, done: string) => {
    setMessage(null);
    try {
      const result = await action();
      if (typeof result === 'string') setExchange(result);
      else {
        setSavedTable(result);
        setDraft(null);
        setTableGeneration((count) => count + 1);
        setUnreadable({ cells: false, multiplier: false });
      }
      setMessage({ kind: 'ok', text: done });
    } catch (caught) {
      setMessage({ kind: 'error', text: (caught as Error).message });
    }
  };

  return (
    <fieldset className="prices">
      <legend>Prices (credits per 1M tokens or characters, per call, per audio minute or per video second)</legend>
      <PriceRows
        key={tableGeneration}
        prices={table.prices}
        onChange={(prices: ModelPrice[]) => setDraft({ ...draft, prices })}
        onProblems={(held) => setUnreadable({ ...unreadable, cells: held })}
      />
      <label htmlFor={multiplierId}>
        Multiplier for the whole profile
        <DecimalInput
          key={tableGeneration}
          id={multiplierId}
          value={table.priceMultiplier}
          onText={(text) => {
            // Blank is no multiplier, the prices as listed, as the profile form reads its own multiplier field: refused
            // here, the field cleared to mean none kept Save disabled until a 1 was typed.
            const typed = typedNumber(text) ?? NO_PRICE_MULTIPLIER;
            const problem =
              typeof typed === 'object'
                ? typed.problem
                : Number.isNaN(typed)
                  ? 'The multiplier is a number, such as 1 for the prices as listed (blank for none).'
                  : null;
            setUnreadable({ ...unreadable, multiplier: problem !== null });
            setMessage(problem === null ? null : { kind: 'error', text: problem });
            if (typeof typed === 'number' && problem === null) setDraft({ ...draft, priceMultiplier: typed });
          }}
        />
      </label>
      {/* Marked, not disabled, while there is nothing to save: the save drops the draft, and a focused
          button that turned disabled sent focus to the window's top. */}
      <BusyButton
        busy={false}
        nothingToDo={draft === null || unreadable.cells || unreadable.multiplier}
        onPress={() => void act(() => api.savePrices(profileId, draft ?? {}), 'Prices saved.')}
      >
        Save prices
      </BusyButton>
      <details>
        <summary>Import / export</summary>
        <label>
          Format
          <select value={format} onChange={(event) => setFormat(event.target.value as PriceFormat)}>
            <option value="csv">CSV</option>
            <option value="json">JSON</option>
          </select>
        </label>
        <label>
          Price file contents
          <textarea rows={6} value={exchange} onChange={(event) => setExchange(event.target.value)} />
        </label>
        <button type="button" onClick={() => void act(() => api.exportPrices(profileId, format), 'Exported below; copy or edit it.')}>
          Export
        </button>
        <button
          type="button"
          disabled={exchange.trim() === ''}
          onClick={() => void act(() => api.importPrices(profileId, format, exchange), 'Imported: this replaced the table.')}
        >
          Import (replaces the table)
        </button>
      </details>
      {message && (
        <p className={message.kind === 'ok' ? 'ok' : 'field-error'} role={message.kind === 'error' ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
    </fieldset>
  );
}
