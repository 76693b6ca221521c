import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RequestExportFormat } from '../../contracts/export.ts';
import { MAX_PAGE_LIMIT, type RequestCursor, type RequestListFilter, type RequestPage, type StoredRequest } from '../../contracts/log.ts';
import type { RequestLogQueries } from '../../store/read/queries.ts';
import { requestsCsv } from './csv.ts';
import { harEntryOf, harLogOf } from './har.ts';

/** A response, a file or stdout: what the CLI's streams and Express both are. */
export type ExportSink = NodeJS.WritableStream & { readonly destroyed?: boolean };

/** The log's list and detail, as the CLI reads them now (its read-only connection) and the control API later (the reader thread). */
export interface ExportSource {
  listRequests(...args: Parameters<RequestLogQueries['listRequests']>): RequestPage | Promise<RequestPage>;
  getRequest(id: string): StoredRequest | null | Promise<StoredRequest | null>;
}

export interface RequestExportOptions {
  format: RequestExportFormat;
  /** The request list's filters; its cursor and page size are the export's own business. */
  filter: Omit<RequestListFilter, 'beforeCursor' | 'limit'>;
  proxyUrl: string;
  knownSecrets: string[];
  airlockVersion: string;
}

export const EXPORT_CONTENT_TYPES: Record<RequestExportFormat | 'spend-csv', string> = {
  har: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  'spend-csv': 'text/csv; charset=utf-8',
};

/** `airlock-requests-20261126-0153.har`: sortable, and no character a file system refuses. */
export function exportFileName(what: 'requests' | 'spend', extension: 'har' | 'csv', nowMs: number): string {
  const stamp = new Date(nowMs).toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  return `airlock-${what}-${stamp}.${extension}`;
}

class ExportClosedError extends Error {
  constructor() {
    super('The export was closed before it ended (the download was cancelled or the file could not be written).');
    this.name = 'ExportClosedError';
  }
}

/** Honours backpressure, and gives up if the other end went away instead of waiting for a drain that never comes. */
function write(sink: ExportSink, text: string): Promise<void> {
  if (sink.destroyed === true) return Promise.reject(new ExportClosedError());
  if (sink.write(text)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      sink.off('drain', onDrain);
      sink.off('close', onClose);
      sink.off('error', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(new ExportClosedError());
    sink.on('drain', onDrain);
    sink.on('close', onClose);
    sink.on('error', onClose);
  });
}

/** Every page of the filtered log, newest first (the list's keyset order), so memory holds one page at a time. */
async function* pagesOf(source: ExportSource, filter: RequestExportOptions['filter']) {
  let cursor: RequestCursor | undefined;
  do {
    const page = await source.listRequests({ ...filter, limit: MAX_PAGE_LIMIT, ...(cursor ? { beforeCursor: cursor } : {}) });
    yield page.rows;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/**
 * Writes the filtered request log to `sink` as HAR or CSV, a page at a time, yielding to the event
 * loop between pages: the proxy that serves the download keeps forwarding meanwhile. Returns how
 * many requests were written; the caller ends the sink.
 */
export async function writeRequestExport(source: ExportSource, sink: ExportSink, options: RequestExportOptions): Promise<number> {
  let count = 0;
  if (options.format === 'csv') {
    for await (const rows of pagesOf(source, options.filter)) {
      if (rows.length > 0 || count === 0) await write(sink, requestsCsv(rows, { header: count === 0, knownSecrets: options.knownSecrets }));
      count += rows.length;
      await nextTurn();
    }
    return count;
  }
  // The HAR shell with its (last) entries array left open, entries written into it one by one.
  const shell = JSON.stringify(harLogOf([], options.airlockVersion));
  const closing = ']}}';
  await write(sink, shell.slice(0, -closing.length));
  for await (const rows of pagesOf(source, options.filter)) {
    for (const row of rows) {
      const detail = await source.getRequest(row.id);
      if (detail === null) continue; // removed by retention since the page was read
      await write(sink, (count === 0 ? '' : ',') + JSON.stringify(harEntryOf(detail, options)));
      count += 1;
    }
    await nextTurn();
  }
  await write(sink, closing);
  return count;
}
