import type { PairRow } from './profileForm.ts';

interface PairRowsEditorProps {
  legend: string;
  fromLabel: string;
  toLabel: string;
  rows: PairRow[];
  onChange: (rows: PairRow[]) => void;
}

/** Editable list of from → to pairs (model aliases, wildcard routes). */
export function PairRowsEditor({ legend, fromLabel, toLabel, rows, onChange }: PairRowsEditorProps) {
  const update = (index: number, patch: Partial<PairRow>) => onChange(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  return (
    <fieldset className="pairs">
      <legend>{legend}</legend>
      {rows.length === 0 && <p className="muted">None.</p>}
      {rows.map((row, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no id of their own (a key is edited in place), and every input is controlled, so a position is the row's identity
        <div className="pair" key={index}>
          <label>
            {fromLabel}
            <input value={row.from} onChange={(event) => update(index, { from: event.target.value })} />
          </label>
          <span aria-hidden="true">→</span>
          <label>
            {toLabel}
            <input value={row.to} onChange={(event) => update(index, { to: event.target.value })} />
          </label>
          <button type="button" aria-label={`Remove ${row.from || 'row'}`} onClick={() => onChange(rows.filter((_, at) => at !== index))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...rows, { from: '', to: '' }])}>
        Add
      </button>
    </fieldset>
  );
}
