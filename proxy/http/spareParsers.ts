import { createRequire } from 'node:module';

interface SpareParser {
  close(): void;
}

/**
 * node:http keeps the parser of each connection that closed, for the next one, up to 1000 of them
 * (`parsers` in Node's `_http_common`): about 10 KB of malloc each outside V8's heap, kept for
 * good. After the bench's c=50 load that was 50 parsers, 0.5 MB (heaptrack); after a thousand
 * connections at once it would be 10 MB. Once the forwarding thread has been idle for its
 * reclaimer's 30 s they are closed (what Node does with a parser its list has no room for), and a
 * later connection makes a new one (2-5 us here). `_http_common` is a built-in module Node
 * lists but does not document: where its shape differs, nothing is closed.
 * Returns how many were closed.
 */
export function closeSpareHttpParsers(): number {
  const spare = spareParserList();
  if (spare === null || spare.length === 0) return 0;
  const closing = spare.splice(0);
  for (const parser of closing) parser.close();
  return closing.length;
}

const requireBuiltin = createRequire(import.meta.url);

function spareParserList(): SpareParser[] | null {
  try {
    const common = requireBuiltin('node:_http_common') as { parsers?: { list?: unknown } };
    const list = common.parsers?.list;
    return Array.isArray(list) && list.every((parser) => typeof parser?.close === 'function') ? (list as SpareParser[]) : null;
  } catch {
    return null;
  }
}
