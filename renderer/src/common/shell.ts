/** POSIX shell single-quoting: safe for any text, including quotes and newlines. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
