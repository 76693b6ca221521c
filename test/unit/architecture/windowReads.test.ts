import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listSourceFiles } from './importScanner.ts';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The request log's synchronous reads that can take a second or more on a large log: run from a
 * control route, they held up every forwarded request on the forwarding thread. The window reads
 * them through `log.reads`, on the reader thread (proxy/store/read/logReader.ts).
 */
const SYNCHRONOUS_WINDOW_READ = /\blog\s*\.\s*(listRequests|facets|getRequest|replaysOf|spendByDay|modelStats|sessions|queries)\b/g;
/** `totals` over today only, for the status bar (built on every push, and synchronous there); nothing else. */
const TODAY_TOTALS_ALLOWED_IN = new Set(['proxy/app/control/status.ts']);
const TOTALS = /\blog\s*\.\s*totals\b/g;

/** Each synchronous window read a control module calls, as `file: log.name`. */
function synchronousReadsIn(file: string, source: string): string[] {
  const found = [...source.matchAll(SYNCHRONOUS_WINDOW_READ)].map((match) => `${file}: log.${match[1]}`);
  if (!TODAY_TOTALS_ALLOWED_IN.has(file)) found.push(...[...source.matchAll(TOTALS)].map(() => `${file}: log.totals`));
  return found;
}

describe('the control routes read the log off the forwarding thread', () => {
  it('call none of the synchronous window reads', () => {
    const files = listSourceFiles(projectRoot, ['proxy/app/control']);
    expect(files).toContain('proxy/app/control/spend.ts');
    const found = files.flatMap((file) => synchronousReadsIn(file, readFileSync(join(projectRoot, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('the check finds such a call', () => {
    expect(
      synchronousReadsIn('proxy/app/control/x.ts', 'const counts = deps.log.facets(query);\nawait deps.log.reads.facets(query);'),
    ).toEqual(['proxy/app/control/x.ts: log.facets']);
    expect(synchronousReadsIn('proxy/app/control/x.ts', 'deps.log.sessions.listSessions(q); deps.log.totals(q)')).toEqual([
      'proxy/app/control/x.ts: log.sessions',
      'proxy/app/control/x.ts: log.totals',
    ]);
    expect(synchronousReadsIn('proxy/app/control/status.ts', 'deps.log.totals(today)')).toEqual([]);
  });
});
