import { parse } from 'csv-parse/sync';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RequestListFilter, RequestLogRow, RequestPage } from '../../../../proxy/contracts/log.ts';
import { MAX_PAGE_LIMIT } from '../../../../proxy/contracts/log.ts';
import { exportFileName, writeRequestExport, type ExportSource } from '../../../../proxy/app/export/requestExport.ts';
import { harSchema } from '../../../support/harSchema.ts';
import { logBodies, logRow } from './exportRows.ts';

/** A log of `count` rows, newest first, paged by the keyset cursor as the real queries page; records the filters asked for. */
function fakeLog(count: number): ExportSource & { filters: RequestListFilter[]; detailsRead: number } {
  const rows: RequestLogRow[] = Array.from({ length: count }, (_, index) =>
    logRow({ id: `alk_${String(count - index).padStart(6, '0')}`, startedAtMs: 1_700_000_000_000 + (count - index) }),
  );
  const source = {
    filters: [] as RequestListFilter[],
    detailsRead: 0,
    listRequests(filter: RequestListFilter): RequestPage {
      source.filters.push(filter);
      const start = filter.beforeCursor ? rows.findIndex((row) => row.id === filter.beforeCursor?.id) + 1 : 0;
      const page = rows.slice(start, start + (filter.limit ?? 100));
      const last = page.at(-1);
      return { rows: page, nextCursor: start + page.length < rows.length && last ? { startedAtMs: last.startedAtMs, id: last.id } : null };
    },
    getRequest(id: string) {
      source.detailsRead += 1;
      const row = rows.find((candidate) => candidate.id === id);
      return row ? { row, bodies: logBodies() } : null;
    },
  };
  return source;
}

async function exported(source: ExportSource, format: 'har' | 'csv'): Promise<{ text: string; count: number }> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  const count = await writeRequestExport(source, sink, {
    format,
    filter: { model: 'gpt-4o-mini' },
    proxyUrl: 'http://127.0.0.1:8642',
    knownSecrets: [],
    airlockVersion: '0.1.0',
  });
  sink.end();
  return { text: Buffer.concat(chunks).toString('utf8'), count };
}

describe('writeRequestExport pages through the whole filtered log', () => {
  it.each([0, 1, MAX_PAGE_LIMIT, MAX_PAGE_LIMIT * 2 + 7])('CSV of %i rows: one header, every row once, newest first', async (count) => {
    const log = fakeLog(count);
    const { text, count: written } = await exported(log, 'csv');
    const records = parse(text, { columns: true }) as Record<string, string>[];
    expect(written).toBe(count);
    expect(records).toHaveLength(count);
    expect(new Set(records.map((record) => record.id)).size).toBe(count);
    expect(records.map((record) => record.id)).toEqual([...records.map((record) => record.id)].sort().reverse());
    expect(log.filters.every((filter) => filter.model === 'gpt-4o-mini' && filter.limit === MAX_PAGE_LIMIT)).toBe(true);
  });

  it.each([0, 3, MAX_PAGE_LIMIT + 1])('HAR of %i rows is one valid HAR 1.2 document', async (count) => {
    const { text, count: written } = await exported(fakeLog(count), 'har');
    const document: unknown = JSON.parse(text);
    expect(harSchema.safeParse(document).error?.issues ?? []).toEqual([]);
    expect((document as { log: { entries: unknown[] } }).log.entries).toHaveLength(count);
    expect(written).toBe(count);
  });

  it('stops reading the log when the download is closed, instead of waiting for a drain that never comes', async () => {
    const log = fakeLog(MAX_PAGE_LIMIT * 4);
    // A reader that takes nothing: the first full buffer blocks, then the client goes away.
    const sink = new Writable({ highWaterMark: 1024, write: () => undefined });
    const run = writeRequestExport(log, sink, {
      format: 'har',
      filter: {},
      proxyUrl: 'http://127.0.0.1:8642',
      knownSecrets: [],
      airlockVersion: '0.1.0',
    });
    // Writes that return at once are microtasks: by the next turn the export waits on the full buffer.
    await new Promise(setImmediate);
    expect(sink.writableNeedDrain).toBe(true);
    sink.destroy();
    await expect(run).rejects.toThrow(/closed before it ended/);
    expect(log.detailsRead).toBeLessThan(MAX_PAGE_LIMIT);
  });
});

describe('exportFileName', () => {
  it.each([
    ['requests', 'har', Date.UTC(2026, 10, 26, 1, 5, 59), 'airlock-requests-20261126-0105.har'],
    ['spend', 'csv', Date.UTC(2026, 0, 2, 23, 0), 'airlock-spend-20260102-2300.csv'],
  ] as const)('%s %s', (what, extension, nowMs, name) => {
    expect(exportFileName(what, extension, nowMs)).toBe(name);
  });
});
