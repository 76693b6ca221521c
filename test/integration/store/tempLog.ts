import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { TEST_NOW_MS } from '../../support/lifecycleEvents.ts';
import { createRequestLog, type RequestLog, type RequestLogOptions } from '../../../proxy/store/requestLog.ts';

export interface TempLog {
  dataDir: string;
  log: RequestLog;
  events: RequestEvents;
  /** Opens another log over the same directory (the previous one must be closed). */
  reopen(options?: Partial<RequestLogOptions>): RequestLog;
  cleanup(): Promise<void>;
}

/**
 * A fresh temp directory for each test of the calling file, removed after it; call at the top of
 * the file, before hooks that must run ahead of the removal (after-hooks run in reverse).
 */
export function tempDirPerTest(prefix: string): () => string {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/** A request log in a fresh temp directory, attached to its own event bus. */
export function openTempLog(options: Partial<RequestLogOptions> = {}): TempLog {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-log-'));
  const opened: RequestLog[] = [];
  const open = (extra: Partial<RequestLogOptions>): RequestLog => {
    const log = createRequestLog({ dataDir, knownSecrets: () => [], minFreeDiskBytes: 0, now: () => TEST_NOW_MS, ...options, ...extra });
    opened.push(log);
    return log;
  };
  const events = new RequestEvents((error) => {
    throw error;
  });
  const log = open({});
  log.attach(events);
  return {
    dataDir,
    log,
    events,
    reopen: open,
    async cleanup() {
      for (const each of opened) await each.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
