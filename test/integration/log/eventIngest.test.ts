import type { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventIngest } from '../../../proxy/log/eventIngest.ts';
import { RequestLogQueries } from '../../../proxy/log/queries.ts';
import { openLogDatabase } from '../../../proxy/log/schema.ts';
import { endEvent, startEvent } from './lifecycleEvents.ts';
import { tempDirPerTest } from './tempLog.ts';

const dataDir = tempDirPerTest('airlock-ingest-');
let db: DatabaseSync;
let errors: unknown[];
const ingests: EventIngest[] = [];

beforeEach(() => {
  db = openLogDatabase({ dataDir: dataDir() });
  errors = [];
});
afterEach(() => {
  for (const ingest of ingests.splice(0)) ingest.close();
  db.close();
});

/** A fresh ingest over the same database, as a log thread started after another one died. */
function newThread(): EventIngest {
  const ingest = new EventIngest(db, { bodyCapBytes: 1024, onError: (error) => errors.push(error), onBodiesState: () => undefined });
  ingests.push(ingest);
  return ingest;
}

describe('EventIngest after a log thread was replaced', () => {
  it('completes the in-flight row an earlier thread wrote, keeping what its start said', () => {
    newThread().ingest([startEvent('r1', { clientName: 'codex', requestedModel: 'gpt-4o' })], [], true);
    newThread().ingest([endEvent('r1', { costCredits: 2.5 })], [], true);

    const detail = new RequestLogQueries(db).getRequest('r1');
    expect(detail?.row).toMatchObject({ state: 'done', status: 200, clientName: 'codex', requestedModel: 'gpt-4o', costCredits: 2.5 });
    expect(detail?.bodies).not.toBeNull();
    expect(errors).toEqual([]);
  });

  it('ignores the end of a request it has no row for, and never reopens a finished row', () => {
    const first = newThread();
    first.ingest([startEvent('done'), endEvent('done', { costCredits: 1 })], [], true);
    newThread().ingest([endEvent('never-started'), endEvent('done', { costCredits: 9 })], [], true);

    const queries = new RequestLogQueries(db);
    expect(queries.getRequest('never-started')).toBeNull();
    expect(queries.getRequest('done')?.row.costCredits).toBe(1);
  });
});
