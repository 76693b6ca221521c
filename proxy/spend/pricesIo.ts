import { parse } from 'csv-parse/sync';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { jsonSyntaxErrorAt } from '../core/jsonSyntaxError.ts';
import { redactSecrets } from '../core/redact.ts';
import { readsAsZero, tooSmallToStore } from '../contracts/amounts.ts';
import { MAX_PRICE_CREDITS, type ModelPrice } from '../contracts/profile.ts';
import { spreadsheetCsv, withoutFormulaGuard } from '../core/spreadsheetCsv.ts';

/**
 * A profile's price table as JSON or CSV, for the Profiles screen and the CLI. Imports are
 * strict: a bad cell is reported with its line and column, never skipped or guessed.
 */
export const PRICE_CSV_COLUMNS = [
  'model',
  'inputPer1M',
  'outputPer1M',
  'cachedInputPer1M',
  'perCall',
  // Added later, so last: files written before them keep their columns' places.
  'cacheWritePer1M',
  'cacheWrite1hPer1M',
  'perAudioMinute',
  'perVideoSecond',
  'perMillionCharacters',
] as const;
type PriceColumn = (typeof PRICE_CSV_COLUMNS)[number];
type PriceNumberColumn = Exclude<PriceColumn, 'model'>;
const NUMBER_COLUMNS: readonly PriceNumberColumn[] = PRICE_CSV_COLUMNS.filter((column) => column !== 'model');
/** Tried in this order on the header line: a comma-separated file is the usual one. */
const CSV_DELIMITERS = [',', ';', '\t'] as const;

interface CsvRecordWithLine {
  record: string[];
  /** The line the record ends on, 1-based. */
  info: { lines: number };
}

export class PriceImportError extends Error {
  override name = 'PriceImportError';
}

export function exportPricesJson(prices: readonly ModelPrice[]): string {
  return `${JSON.stringify(prices.map(orderedPrice), null, 2)}\n`;
}

/** Price tables are shared between people: a model id a spreadsheet would run as a formula is defused. */
export function exportPricesCsv(prices: readonly ModelPrice[]): string {
  const rows = prices.map((price) => PRICE_CSV_COLUMNS.map((column) => price[column] ?? null));
  return spreadsheetCsv(rows, PRICE_CSV_COLUMNS);
}

export function importPricesJson(text: string): ModelPrice[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, keepUnstorableNumbers as Parameters<typeof JSON.parse>[1]);
  } catch (error) {
    throw new PriceImportError(`price JSON is not valid JSON: ${jsonSyntaxError(text, error)}`);
  }
  if (!Array.isArray(parsed)) throw new PriceImportError('price JSON must be an array of { model, inputPer1M, ... } objects');
  const prices = parsed.map((entry, index) => priceFromJsonEntry(entry, `entry ${index + 1}`));
  rejectDuplicates(prices.map((price, index) => ({ price, where: `entry ${index + 1}` })));
  return prices;
}

export function importPricesCsv(text: string): ModelPrice[] {
  let records: CsvRecordWithLine[];
  try {
    // csv-parse's typings do not model `info: true`, which wraps each record with its position.
    const options = {
      info: true,
      skip_empty_lines: true,
      trim: true,
      bom: true,
      relax_column_count: true,
      delimiter: headerDelimiter(text),
    };
    records = parse(text, options) as unknown as CsvRecordWithLine[];
  } catch (error) {
    throw new PriceImportError(`price CSV cannot be read: ${shown((error as Error).message)}`);
  }
  const [header, ...rows] = records;
  if (!header) throw new PriceImportError(`price CSV is empty: expected the header ${PRICE_CSV_COLUMNS.join(',')}`);
  const columns = headerColumns(header.record);
  const prices = rows.map(({ record, info }) => {
    const where = `line ${info.lines}`;
    if (record.length !== columns.length) {
      throw new PriceImportError(`${where}: expected ${columns.length} columns, found ${record.length}`);
    }
    return { price: priceFromCsvRecord(record, columns, where), where };
  });
  rejectDuplicates(prices);
  return prices.map(({ price }) => price);
}

/**
 * Excel saves CSV with the system's list separator: ';' where the decimal separator is a comma
 * (much of Europe), and "Unicode text" with tabs. The header holds only column names, which
 * contain none of these, so its first line tells which one the file uses.
 */
function headerDelimiter(text: string): string {
  const headerLine = text.split(/\r?\n/, 1)[0] ?? '';
  return CSV_DELIMITERS.find((delimiter) => headerLine.includes(delimiter)) ?? ',';
}

function headerColumns(cells: string[]): PriceColumn[] {
  const seen = new Set<string>();
  const columns = cells.map((cell, index) => {
    if (!isPriceColumn(cell)) {
      throw new PriceImportError(
        `line 1, column ${index + 1}: unknown column '${shown(cell)}' (allowed: ${PRICE_CSV_COLUMNS.join(', ')}, separated by commas, semicolons or tabs)`,
      );
    }
    if (seen.has(cell)) throw new PriceImportError(`line 1, column ${index + 1}: column '${shown(cell)}' appears twice`);
    seen.add(cell);
    return cell;
  });
  if (!seen.has('model')) throw new PriceImportError(`line 1: the 'model' column is required`);
  return columns;
}

function priceFromCsvRecord(record: string[], columns: PriceColumn[], where: string): ModelPrice {
  const price: ModelPrice = { model: '' };
  columns.forEach((column, index) => {
    const cell = record[index] ?? '';
    const at = `${where}, column ${index + 1} (${column})`;
    if (column === 'model') {
      if (cell === '') throw new PriceImportError(`${at}: model id is empty`);
      price.model = withoutFormulaGuard(cell);
    } else if (cell !== '') {
      price[column] = parsePriceNumber(cell, at);
    }
  });
  return price;
}

function priceFromJsonEntry(entry: unknown, where: string): ModelPrice {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new PriceImportError(`${where}: expected an object`);
  }
  const record = entry as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!isPriceColumn(key))
      throw new PriceImportError(`${where}: unknown field '${shown(key)}' (allowed: ${PRICE_CSV_COLUMNS.join(', ')})`);
  }
  const model = record['model'];
  if (typeof model !== 'string' || model.trim() === '')
    throw new PriceImportError(`${where}, field model: a non-empty model id is required`);
  const price: ModelPrice = { model: model.trim() };
  for (const column of NUMBER_COLUMNS) {
    const value = record[column];
    if (value === undefined || value === null) continue;
    if (value instanceof UnstorableNumber) throw new PriceImportError(`${where}, field ${column}: ${value.problem}`);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new PriceImportError(`${where}, field ${column}: expected a non-negative number, got ${shown(JSON.stringify(value))}`);
    }
    if (value > MAX_PRICE_CREDITS) throw new PriceImportError(`${where}, field ${column}: ${tooLarge(String(value))}`);
    price[column] = value;
  }
  return price;
}

function parsePriceNumber(cell: string, at: string): number {
  // Number('') and Number('0x10') would pass silently; only plain decimals are prices.
  // '0,5' is half in a decimal-comma locale and '1,000' a thousand in another: neither is guessed.
  if (/^[\d.,]*,[\d.,]*$/.test(cell))
    throw new PriceImportError(
      `${at}: '${shown(cell)}' has a comma: write the number with a decimal point and no thousands separator (0.5, 1000)`,
    );
  // '.5' as the window's number field takes it (HTML's floating-point number allows no digit before the point).
  const price = /^(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?$/.test(cell) ? Number(cell) : Number.NaN;
  // Past the largest double (1e400): a number as written, said as "expected a non-negative number" all the same.
  if (price === Number.POSITIVE_INFINITY) throw new PriceImportError(`${at}: ${tooLarge(cell)}`);
  if (!Number.isFinite(price)) throw new PriceImportError(`${at}: expected a non-negative number of credits, got '${shown(cell)}'`);
  if (readsAsZero(cell, price)) throw new PriceImportError(`${at}: ${tooSmallToStore(cell)}`);
  if (price > MAX_PRICE_CREDITS) throw new PriceImportError(`${at}: ${tooLarge(cell)}`);
  return price;
}

/**
 * A JSON number whose value is not what its text says: not zero but read as 0 (1e-999), or past the largest double and
 * read as Infinity (1e400, which was then said as "got null"). Kept apart so the entry is refused naming the text.
 */
class UnstorableNumber {
  readonly problem: string;
  constructor(problem: string) {
    this.problem = problem;
  }
}

/** JSON.parse's reviver with the number's source text (Node 21+), which alone tells 1e-999 from 0. */
function keepUnstorableNumbers(_key: string, value: unknown, context?: { source?: string }): unknown {
  const source = context?.source;
  if (typeof value !== 'number' || source === undefined) return value;
  if (readsAsZero(source, value)) return new UnstorableNumber(tooSmallToStore(source));
  return Number.isFinite(value) ? value : new UnstorableNumber(tooLarge(source));
}

function tooLarge(source: string): string {
  return `'${source}' is above the largest price Airlock takes (${MAX_PRICE_CREDITS} credits): no model costs that, and spend totals would overflow`;
}

function rejectDuplicates(entries: { price: ModelPrice; where: string }[]): void {
  const firstSeen = new Map<string, string>();
  for (const { price, where } of entries) {
    const previous = firstSeen.get(price.model);
    if (previous) throw new PriceImportError(`${where}: model '${shown(price.model)}' is already priced at ${previous}`);
    firstSeen.set(price.model, where);
  }
}

/**
 * A cell or value as a refusal quotes it, masked by the secret shapes: the key last copied, pasted here by mistake,
 * was repeated to the window in full (a CSV header cell, a number's place).
 */
function shown(text: string): string {
  return redactSecrets(text);
}

/**
 * Where the JSON stops parsing, in words: V8's own message quotes the text around the place (`"sk-proj-ab"... is
 * not valid JSON`), which in a pasted key is part of it.
 */
function jsonSyntaxError(text: string, error: unknown): string {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  return first ? jsonSyntaxErrorAt(text, first) : shown(error instanceof Error ? error.message : String(error));
}

function isPriceColumn(name: string): name is PriceColumn {
  return (PRICE_CSV_COLUMNS as readonly string[]).includes(name);
}

/** Fixed key order, no undefined keys: exported files diff cleanly. */
function orderedPrice(price: ModelPrice): ModelPrice {
  const ordered: ModelPrice = { model: price.model };
  for (const column of NUMBER_COLUMNS) if (price[column] !== undefined) ordered[column] = price[column];
  return ordered;
}
