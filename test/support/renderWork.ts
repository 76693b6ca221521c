import { vi } from 'vitest';

/** Work the window did while `run` ran, counted where it grows with the size of what is shown. */
export interface RenderWork {
  jsonParses: number;
  /** Characters JSON.parse read: a body parsed again is its whole size again. */
  jsonCharsParsed: number;
  /** Characters lowercased: a search is marked by lowercasing all the text it looks in. */
  charsLowercased: number;
  /** Moments written as a time of day (formatTimestamp): a list row writes two each time it renders. */
  timesFormatted: number;
  /** Numbers written for people (toLocaleString): a count in a menu, the list's size. */
  numbersFormatted: number;
  /** Rows read from the Live list's rows (the map passed as `rows`): grouping the list reads every one. */
  rowLookups: number;
  /** Lookups in every other Map: React's own, and the list virtualizer's sizes, one per line it measures. */
  otherMapLookups: number;
}

/** Counts `run`'s work (sync: a React `act` whose updates are flushed when it returns). */
export function countRenderWork(run: () => void, rows?: ReadonlyMap<unknown, unknown>): RenderWork {
  const work: RenderWork = {
    jsonParses: 0,
    jsonCharsParsed: 0,
    charsLowercased: 0,
    timesFormatted: 0,
    numbersFormatted: 0,
    rowLookups: 0,
    otherMapLookups: 0,
  };
  const parse = JSON.parse;
  const toLowerCase = String.prototype.toLowerCase;
  const toLocaleTimeString = Date.prototype.toLocaleTimeString;
  const get = Map.prototype.get;
  const numberToLocaleString = Number.prototype.toLocaleString;
  const spies = [
    vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      work.jsonParses += 1;
      work.jsonCharsParsed += String(text).length;
      return parse(text, reviver);
    }),
    vi.spyOn(String.prototype, 'toLowerCase').mockImplementation(function (this: string) {
      work.charsLowercased += this.length;
      return toLowerCase.call(this);
    }),
    vi.spyOn(Date.prototype, 'toLocaleTimeString').mockImplementation(function (this: Date, ...args) {
      work.timesFormatted += 1;
      return toLocaleTimeString.apply(this, args);
    }),
    vi.spyOn(Number.prototype, 'toLocaleString').mockImplementation(function (this: number, ...args) {
      work.numbersFormatted += 1;
      return numberToLocaleString.apply(this, args);
    }),
    vi.spyOn(Map.prototype, 'get').mockImplementation(function (this: Map<unknown, unknown>, key: unknown) {
      if (this === rows) work.rowLookups += 1;
      else work.otherMapLookups += 1;
      return get.call(this, key);
    }),
  ];
  try {
    run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return work;
}
