import { useEffect, useRef, useState } from 'react';
import { readsAsZero, tooSmallToStore, typedNumber } from '../../../proxy/contracts/amounts.ts';
import type { ModelPrice } from '../../../proxy/contracts/profile.ts';

type PriceField = Exclude<keyof ModelPrice, 'model'>;
const PRICE_FIELDS: { field: PriceField; label: string }[] = [
  { field: 'inputPer1M', label: 'Input / 1M' },
  { field: 'outputPer1M', label: 'Output / 1M' },
  { field: 'cachedInputPer1M', label: 'Cached input / 1M' },
  { field: 'perCall', label: 'Per call' },
  { field: 'cacheWritePer1M', label: 'Cache write 5 min / 1M' },
  { field: 'cacheWrite1hPer1M', label: 'Cache write 1 h / 1M' },
  // Audio billed by duration (whisper-1): price lists give it per minute.
  { field: 'perAudioMinute', label: 'Per audio minute' },
  // Video billed by the seconds a creation asks for (Sora), speech by the characters it speaks (tts-1).
  { field: 'perVideoSecond', label: 'Per video second' },
  { field: 'perMillionCharacters', label: 'Speech / 1M chars' },
];

/**
 * A blank cell means "no price of this kind", never 0. A text that reads as 0 but is not (1e-999)
 * is refused: the proxy cannot tell the 0 it would be sent from a free model.
 */
export function setPriceField(price: ModelPrice, field: PriceField, text: string): ModelPrice | { problem: string } {
  const next = { ...price };
  const value = typedNumber(text);
  if (value === undefined) delete next[field];
  else if (typeof value === 'object') return value;
  else if (Number.isNaN(value)) return { problem: `'${text.trim()}' is not a number: write the price in digits (0.5, 2)` };
  else if (readsAsZero(text.trim(), value)) return { problem: tooSmallToStore(text.trim()) };
  else next[field] = value;
  return next;
}

function textOf(value: number | undefined): string {
  return value === undefined ? '' : String(value);
}

/**
 * One price as the user types it. Text, not type=number: Chromium's number input drops a character it does not
 * take as it is typed or pasted, so 0,5 became a price of 5 and 10.000,50 one of 10.0005. The text is kept until the
 * table's number changes from elsewhere (an import, a row removed above it).
 */
export function DecimalInput({
  id,
  label,
  value,
  onText,
}: {
  id?: string;
  label?: string;
  value: number | undefined;
  onText: (text: string) => void;
}) {
  // `shown` is the number last given: when it changes, the text is replaced unless it already reads as it ("1." as 1).
  const [cell, setCell] = useState({ text: textOf(value), shown: value });
  if (!Object.is(cell.shown, value)) setCell({ text: Object.is(typedNumber(cell.text), value) ? cell.text : textOf(value), shown: value });
  return (
    <input
      id={id}
      {...(label === undefined ? {} : { 'aria-label': label })}
      type="text"
      inputMode="decimal"
      value={cell.text}
      onChange={(event) => {
        setCell({ text: event.target.value, shown: cell.shown });
        onText(event.target.value);
      }}
    />
  );
}

export function PriceRows({
  prices,
  onChange,
  onProblems,
}: {
  prices: ModelPrice[];
  onChange: (prices: ModelPrice[]) => void;
  /** Whether a cell holds text that is no price: the table then still has that cell's last price, so it is not saved. */
  onProblems?: (held: boolean) => void;
}) {
  // By cell: a good price typed in another cell does not clear a cell still holding 0,5.
  const [problems, setProblems] = useState<Record<string, string>>({});
  const update = (index: number, price: ModelPrice | { problem: string }, cell: string) => {
    const { [cell]: _solved, ...others } = problems;
    const next = 'problem' in price ? { ...others, [cell]: price.problem } : others;
    setProblems(next);
    onProblems?.(Object.keys(next).length > 0);
    if (!('problem' in price)) onChange(prices.map((row, at) => (at === index ? price : row)));
  };
  const problem = Object.values(problems)[0] ?? null;
  // Rows are keyed by position, so after a removal each row below shows in cells that held another row's text, and a
  // refusal kept by position named a cell gone or moved: Save stayed disabled with no cell to correct. The rows are
  // drawn afresh from the table's numbers instead, and no refusal is kept.
  const [generation, setGeneration] = useState(0);
  // The removed row's button goes with it (and every row is drawn afresh): focus moves to the Remove of
  // the row now in its place, or of the last row, or to Add model price, instead of falling to the page.
  const table = useRef<HTMLTableElement>(null);
  const [refocusRow, setRefocusRow] = useState<number | null>(null);
  useEffect(() => {
    if (refocusRow === null) return;
    const buttons = table.current?.querySelectorAll<HTMLButtonElement>('tbody button') ?? [];
    const next = buttons[Math.min(refocusRow, buttons.length - 1)] ?? table.current?.querySelector<HTMLButtonElement>('tfoot button');
    next?.focus();
    setRefocusRow(null);
  }, [refocusRow]);
  const remove = (index: number) => {
    setRefocusRow(index);
    setProblems({});
    onProblems?.(false);
    setGeneration((count) => count + 1);
    onChange(prices.filter((_, at) => at !== index));
  };
  return (
    <>
      {problem !== null && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      {/* Nine kinds of price do not fit a narrow window: the table scrolls sideways in its own box, not the page. */}
      <div className="price-table-scroll">
        <table className="price-table" ref={table}>
          <thead>
            <tr>
              <th scope="col">Model id</th>
              {PRICE_FIELDS.map((column) => (
                <th scope="col" key={column.field}>
                  {column.label}
                </th>
              ))}
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {prices.map((price, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows have no id of their own (the model id is edited in place), and every input is controlled, so a position is the row's identity
              <tr key={`${generation}.${index}`}>
                <td>
                  <input
                    aria-label="Model id"
                    value={price.model}
                    onChange={(event) => update(index, { ...price, model: event.target.value }, `${index}.model`)}
                  />
                </td>
                {PRICE_FIELDS.map((column) => (
                  <td key={column.field}>
                    <DecimalInput
                      label={`${column.label} for ${price.model || 'new model'}`}
                      value={price[column.field]}
                      onText={(text) => update(index, setPriceField(price, column.field, text), `${index}.${column.field}`)}
                    />
                  </td>
                ))}
                <td>
                  <button type="button" onClick={() => remove(index)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <td colSpan={PRICE_FIELDS.length + 2}>
                <button type="button" onClick={() => onChange([...prices, { model: '' }])}>
                  Add model price
                </button>
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
    </>
  );
}
