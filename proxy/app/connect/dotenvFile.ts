/**
 * `.env` files (NAME=value lines, `#` comments, optional `export ` and quotes) as the dotenv
 * family reads them. Edits replace or drop the one line of a name and append a new name at the
 * end; every other line, comments included, stays byte for byte. The values Airlock writes are
 * client tokens (letters, digits, `_`, `-`) and NO_PROXY lists (host names, addresses, `,`, `*`,
 * `[::1]`), which need no quoting.
 */
const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$/;
const PLAIN_VALUE = /^[A-Za-z0-9_.\-:/,*[\]]+$/;

export function parseDotenv(text: string | null): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of (text ?? '').split(/\r?\n/)) {
    const match = LINE.exec(line);
    if (!match) continue;
    values.set(match[1]!, unquote(match[2]!));
  }
  return values;
}

function unquote(raw: string): string {
  const quoted = /^(["'])(.*)\1$/.exec(raw);
  if (quoted) return quoted[2]!;
  // An unquoted value ends at a comment that follows whitespace.
  return raw.replace(/\s+#.*$/, '');
}

/** The text with `name` set to `value`, or its line removed when value is undefined. */
export function setDotenv(text: string | null, name: string, value: string | undefined): string {
  if (value !== undefined && !PLAIN_VALUE.test(value)) throw new Error(`the value for ${name} needs quoting, which Airlock does not write`);
  const eol = text?.includes('\r\n') ? '\r\n' : '\n';
  const lines = text === null || text === '' ? [] : text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  let seen = false;
  const next: string[] = [];
  for (const line of lines) {
    if (LINE.exec(line)?.[1] !== name) {
      next.push(line);
      continue;
    }
    // Dotenv readers take the first definition; later duplicates are dropped with it.
    if (value !== undefined && !seen) next.push(`${name}=${value}`);
    seen = true;
  }
  if (value !== undefined && !seen) next.push(`${name}=${value}`);
  return next.length === 0 ? '' : `${next.join(eol)}${eol}`;
}
