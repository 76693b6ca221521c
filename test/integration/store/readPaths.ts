import type { RequestLog } from '../../../proxy/store/requestLog.ts';
import type { WindowReads } from '../../../proxy/store/read/windowReads.ts';

/**
 * The window's reads of the log, on the reader thread (`log.reads`), the one way the proxy asks
 * them: the main connection keeps only the reads the CLI, the status and the caps make
 * (`listRequests`, `getRequest`, `totals`, `spendSince`, `sessions`), tested where they are used.
 */
export const READ_PATHS: [string, (log: RequestLog) => WindowReads][] = [['read on the reader thread', (log) => log.reads]];
