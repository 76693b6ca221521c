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
}

/** Counts `run`'s work (sync: a React `act` whose updates are flushed when it returns). */
export function countRenderWork(run: () => void): RenderWork {
  const work: RenderWork = { jsonParses: 0, jsonCharsParsed: 0, charsLowercased: 0, timesFormatted: 0 };
  const parse = JSON.parse;
  const toLowerCase = String.prototype.toLowerCase;
  const toLocaleTimeString = Date.prototype.toLocaleTimeString;
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
  ];
  try {
    run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return work;
}
