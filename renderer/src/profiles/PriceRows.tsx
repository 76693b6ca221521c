import { useState } from 'react';
import { readsAsZero, tooSmallToStore } from '../../../proxy/contracts/amounts.ts';
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
];

/**
 * A blank cell means "no price of this kind", never 0. A text that reads as 0 but is not (1e-999)
 * is refused: the proxy cannot tell the 0 it would be sent from a free model.
 */
export function setPriceField(price: ModelPrice, field: PriceField, text: string): ModelPrice | { problem: string } {
  const next = { ...price };
  const value = Number(text);
  if (text.trim() === '') delete next[field];
  else if (readsAsZero(text.trim(), value)) return { problem: tooSmallToStore(text.trim()) };
  else next[field] = value;
  return next;
}

export function PriceRows({ prices, onChange }: { prices: ModelPrice[]; onChange: (prices: ModelPrice[]) => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const update = (index: number, price: ModelPrice | { problem: string }) => {
    if ('problem' in price) return setProblem(price.problem);
    setProblem(null);
    onChange(prices.map((row, at) => (at === index ? price : row)));
  };
  return (
    <>
      {problem !== null && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      <table className="price-table">
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
            <tr key={index}>
              <td>
                <input
                  aria-label="Model id"
                  value={price.model}
                  onChange={(event) => update(index, { ...price, model: event.target.value })}
                />
              </td>
              {PRICE_FIELDS.map((column) => (
                <td key={column.field}>
                  <input
                    aria-label={`${column.label} for ${price.model || 'new model'}`}
                    type="number"
                    min={0}
                    step="any"
                    value={price[column.field] ?? ''}
                    onChange={(event) => update(index, setPriceField(price, column.field, event.target.value))}
                  />
                </td>
              ))}
              <td>
                <button type="button" onClick={() => onChange(prices.filter((_, at) => at !== index))}>
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
    </>
  );
}
