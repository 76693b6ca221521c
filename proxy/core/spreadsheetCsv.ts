import { stringify } from 'csv-stringify/sync';

export type CsvCell = string | number | boolean | null;

/**
 * CSV for spreadsheets. Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab or CR
 * first, and their full-width forms) gets a leading `'` (csv-stringify's `escape_formulas`):
 * model names, paths and error messages come from clients, gateways and shared price files
 * (OWASP, CSV injection). Numbers are never touched.
 */
export function spreadsheetCsv(records: CsvCell[][], header: readonly string[] | null): string {
  return stringify(records, {
    ...(header ? { header: true, columns: [...header] } : {}),
    escape_formulas: true,
    cast: { boolean: (value) => String(value) },
  });
}

/** The characters `escape_formulas` guards, after the `'` it adds. */
const GUARDED_FORMULA = /^'[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** A cell `spreadsheetCsv` wrote, read back as the text it was: an id starting `'=` is one it defused. */
export function withoutFormulaGuard(cell: string): string {
  return GUARDED_FORMULA.test(cell) ? cell.slice(1) : cell;
}
