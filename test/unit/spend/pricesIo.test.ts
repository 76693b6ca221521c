import { describe, expect, it } from 'vitest';
import { exportPricesCsv, exportPricesJson, importPricesCsv, importPricesJson, PriceImportError } from '../../../proxy/spend/pricesIo.ts';
import type { ModelPrice } from '../../../proxy/contracts/profile.ts';
import { findSentinel, SENTINEL_KEY } from '../../support/sentinel.ts';

const table: ModelPrice[] = [
  { model: 'gpt-x', inputPer1M: 2, outputPer1M: 8, cachedInputPer1M: 0.5 },
  { model: 'claude-x', inputPer1M: 3, outputPer1M: 15, cachedInputPer1M: 0.3, cacheWritePer1M: 3.75, cacheWrite1hPer1M: 6 },
  { model: 'vendor/model, with comma', inputPer1M: 0.15, outputPer1M: 0.6 },
  { model: 'img-1', perCall: 0.3 },
  { model: 'whisper-1', perAudioMinute: 0.006 },
  { model: 'sora-2', perVideoSecond: 0.1 },
  { model: 'tts-1', perMillionCharacters: 15 },
];

describe('round trips', () => {
  it.each([
    { format: 'json', exportFn: exportPricesJson, importFn: importPricesJson },
    { format: 'csv', exportFn: exportPricesCsv, importFn: importPricesCsv },
  ])('$format export then import gives the same table', ({ exportFn, importFn }) => {
    expect(importFn(exportFn(table))).toEqual(table);
  });

  it('CSV has the documented header and empty cells for missing prices', () => {
    const [header, , , , image, whisper] = exportPricesCsv(table).trimEnd().split('\n');
    expect(header).toBe(
      'model,inputPer1M,outputPer1M,cachedInputPer1M,perCall,cacheWritePer1M,cacheWrite1hPer1M,perAudioMinute,perVideoSecond,perMillionCharacters',
    );
    expect(image).toBe('img-1,,,,0.3,,,,,');
    expect(whisper).toBe('whisper-1,,,,,,,0.006,,');
  });

  // OWASP "CSV Injection": a cell starting with = + - @ tab or CR is run as a formula by spreadsheets.
  it.each(['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\tTAB', '\rCR'])(
    'CSV export defuses a model id a spreadsheet would run as a formula: %j',
    (model) => {
      const [, row] = exportPricesCsv([{ model, perCall: 1 }]).split('\n');
      expect(row?.replace(/^"/, '')).toMatch(/^'/);
    },
  );

  it('a defused model id imports as the id it was', () => {
    const prices = [{ model: '=HYPERLINK("http://x")', perCall: 1 }, { model: '-dash' }];
    expect(importPricesCsv(exportPricesCsv(prices))).toEqual(prices);
  });
});

describe('importPricesCsv', () => {
  it.each([
    { name: 'columns in any order, subset', csv: 'perCall,model\n0.2,img\n', prices: [{ model: 'img', perCall: 0.2 }] },
    { name: 'BOM, blank lines and spaces', csv: '\uFEFFmodel, inputPer1M\n\n m , 1.5 \n', prices: [{ model: 'm', inputPer1M: 1.5 }] },
    { name: 'exponent', csv: 'model,inputPer1M\nm,1e-3\n', prices: [{ model: 'm', inputPer1M: 0.001 }] },
    { name: 'header only', csv: 'model,inputPer1M\n', prices: [] },
    { name: 'zero written with an exponent', csv: 'model,inputPer1M\nm,0.00e-999\n', prices: [{ model: 'm', inputPer1M: 0 }] },
    // Excel saves CSV with the Windows list separator, ';' where the decimal separator is a comma
    // (continental Europe): wiki.imacros.net/csv, grokipedia "List separator (Microsoft Excel)".
    {
      name: 'semicolons, as Excel writes in European locales',
      csv: '\uFEFFmodel;inputPer1M;outputPer1M\r\nvendor/a,b;0.5;2\r\n',
      prices: [{ model: 'vendor/a,b', inputPer1M: 0.5, outputPer1M: 2 }],
    },
    { name: 'tabs', csv: 'model\tperCall\nimg\t0.3\n', prices: [{ model: 'img', perCall: 0.3 }] },
    { name: 'no digit before the point', csv: 'model,inputPer1M\nm,.25\n', prices: [{ model: 'm', inputPer1M: 0.25 }] },
  ])('accepts $name', ({ csv, prices }) => {
    expect(importPricesCsv(csv)).toEqual(prices);
  });

  it.each([
    { name: 'empty file', csv: '', message: 'price CSV is empty' },
    { name: 'unknown column', csv: 'model,price\nm,1\n', message: "line 1, column 2: unknown column 'price'" },
    {
      name: 'another separator',
      csv: 'model|perCall\nm|1\n',
      message:
        "unknown column 'model|perCall' (allowed: model, inputPer1M, outputPer1M, cachedInputPer1M, perCall, cacheWritePer1M, cacheWrite1hPer1M, perAudioMinute, perVideoSecond, perMillionCharacters, separated by commas, semicolons or tabs)",
    },
    { name: 'duplicate column', csv: 'model,model\nm,n\n', message: "line 1, column 2: column 'model' appears twice" },
    { name: 'no model column', csv: 'inputPer1M\n1\n', message: "line 1: the 'model' column is required" },
    {
      name: 'negative',
      csv: 'model,inputPer1M\nm,-1\n',
      message: "line 2, column 2 (inputPer1M): expected a non-negative number of credits, got '-1'",
    },
    {
      name: 'text',
      csv: 'model,inputPer1M,outputPer1M\nm,1,abc\n',
      message: "line 2, column 3 (outputPer1M): expected a non-negative number of credits, got 'abc'",
    },
    {
      name: 'hex',
      csv: 'model,perCall\nm,0x10\n',
      message: "line 2, column 2 (perCall): expected a non-negative number of credits, got '0x10'",
    },
    {
      // Past the largest double: said as not a non-negative number, which it is as written.
      name: 'too large for a double',
      csv: 'model,outputPer1M\nm,1e400\n',
      message: "line 2, column 2 (outputPer1M): '1e400' is above the largest price Airlock takes (1000000000 credits)",
    },
    {
      name: 'a price too small for a double, which would read as free',
      csv: 'model,inputPer1M\nm,1e-999\n',
      message:
        "line 2, column 2 (inputPer1M): '1e-999' is too small to store: it would read as 0 and make the model free (write 0 if it is free)",
    },
    {
      name: 'a price no model has, whose sums would overflow to Infinity and switch the caps off',
      csv: 'model,outputPer1M\nm,1e300\n',
      message: "line 2, column 2 (outputPer1M): '1e300' is above the largest price Airlock takes (1000000000 credits)",
    },
    { name: 'NaN', csv: 'model,perCall\nm,NaN\n', message: "got 'NaN'" },
    { name: 'Infinity', csv: 'model,perCall\nm,Infinity\n', message: "got 'Infinity'" },
    { name: 'empty model', csv: 'model,perCall\n,1\n', message: 'line 2, column 1 (model): model id is empty' },
    { name: 'column count', csv: 'model,perCall\nm,1,2\n', message: 'line 2: expected 2 columns, found 3' },
    { name: 'duplicate model', csv: 'model,perCall\nm,1\nm,2\n', message: "line 3: model 'm' is already priced at line 2" },
    { name: 'unclosed quote', csv: 'model\n"m\n', message: 'price CSV cannot be read' },
    {
      name: 'a decimal comma',
      csv: 'model;inputPer1M\nm;0,5\n',
      message:
        "line 2, column 2 (inputPer1M): '0,5' has a comma: write the number with a decimal point and no thousands separator (0.5, 1000)",
    },
    {
      name: 'a quoted decimal comma in a comma-separated file',
      csv: 'model,outputPer1M\nm,"1,25"\n',
      message: "line 2, column 2 (outputPer1M): '1,25' has a comma",
    },
  ])('rejects $name', ({ csv, message }) => {
    expect(() => importPricesCsv(csv)).toThrow(PriceImportError);
    expect(() => importPricesCsv(csv)).toThrow(message);
  });
});

// The key last copied, pasted into the import by mistake: a refusal quoted it to the window.
describe('a key pasted as prices', () => {
  it.each([
    ['csv', SENTINEL_KEY, /unknown column '\[redacted\]'/],
    ['csv', `model,perCall\nm,${SENTINEL_KEY}\n`, /got '\[redacted\]'/],
    ['csv', `model,${SENTINEL_KEY}\nm,1\n`, /unknown column '\[redacted\]'/],
    ['json', SENTINEL_KEY, /not valid JSON: invalid symbol at line 1, column 1$/],
    ['json', `[{"model":"m","perCall":${SENTINEL_KEY}}]`, /not valid JSON: invalid symbol at line 1, column 25$/],
    ['json', `[{"model":"m","perCall":"${SENTINEL_KEY}"}]`, /got "\[redacted\]"/],
    ['json', `[{"model":"m","${SENTINEL_KEY}":1}]`, /unknown field '\[redacted\]'/],
  ])('%s %#: refused without any of it', (format, text, message) => {
    let refusal = '';
    try {
      if (format === 'csv') importPricesCsv(text);
      else importPricesJson(text);
    } catch (error) {
      refusal = (error as Error).message;
    }
    expect(refusal).toMatch(message);
    expect(findSentinel(refusal)).toBeNull();
    // Not even the start V8 quotes (`"sk-airlock"... is not valid JSON`).
    expect(refusal).not.toContain(SENTINEL_KEY.slice(0, 10));
  });
});

describe('importPricesJson', () => {
  it.each([
    { name: 'not JSON', json: '{', message: 'price JSON is not valid JSON' },
    { name: 'not an array', json: '{"prices":[]}', message: 'must be an array' },
    { name: 'entry not an object', json: '[1]', message: 'entry 1: expected an object' },
    { name: 'unknown field', json: '[{"model":"m","input":1}]', message: "entry 1: unknown field 'input'" },
    { name: 'missing model', json: '[{"inputPer1M":1}]', message: 'entry 1, field model' },
    {
      name: 'string price',
      json: '[{"model":"m"},{"model":"n","perCall":"1"}]',
      message: 'entry 2, field perCall: expected a non-negative number, got "1"',
    },
    { name: 'negative price', json: '[{"model":"m","outputPer1M":-2}]', message: 'entry 1, field outputPer1M' },
    {
      name: 'a price too small for a double',
      json: '[{"model":"m","inputPer1M":1e-999}]',
      message:
        "entry 1, field inputPer1M: '1e-999' is too small to store: it would read as 0 and make the model free (write 0 if it is free)",
    },
    // JSON.parse reads it as Infinity, which was said as "got null".
    {
      name: 'a price too large for a double',
      json: '[{"model":"m","perCall":1e400}]',
      message: "entry 1, field perCall: '1e400' is above the largest price Airlock takes (1000000000 credits)",
    },
    {
      name: 'a price no model has',
      json: '[{"model":"m","cachedInputPer1M":1e300}]',
      message: "entry 1, field cachedInputPer1M: '1e+300' is above the largest price Airlock takes (1000000000 credits)",
    },
    { name: 'duplicate model', json: '[{"model":"m"},{"model":"m"}]', message: "entry 2: model 'm' is already priced at entry 1" },
  ])('rejects $name', ({ json, message }) => {
    expect(() => importPricesJson(json)).toThrow(PriceImportError);
    expect(() => importPricesJson(json)).toThrow(message);
  });

  it('keeps a zero price written with an exponent', () => {
    expect(importPricesJson('[{"model":"m","inputPer1M":0e-999}]')).toEqual([{ model: 'm', inputPer1M: 0 }]);
  });

  it('treats null prices as absent', () => {
    expect(importPricesJson('[{"model":"m","inputPer1M":null,"perCall":1}]')).toEqual([{ model: 'm', perCall: 1 }]);
  });
});
