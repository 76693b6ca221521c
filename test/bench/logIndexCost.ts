/**
 * What each index of the requests table costs a logged request (issue 20; DESIGN.md, "At c=1 the
 * least a SQLite log costs"), run by hand: `node test/bench/logIndexCost.ts <requests.db> [rounds]`
 * with a logged Airlock's log (the bench's c=1 log, say). The log's SQL floor (logSqlFloor.ts) is
 * replayed with each index dropped from the fresh database in turn, then with all of them dropped,
 * the variants alternated (forward, then backward) over `rounds` rounds; per variant, the median of
 * its rounds' requests-row CPU and total, in us a row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureLogSqlFloor } from './logSqlFloor.ts';

/** The secondary indexes on requests (proxy/store/schema.ts); the primary key's cannot be dropped. */
const REQUEST_INDEXES = [
  'requests_by_time',
  'requests_by_profile',
  'requests_by_client',
  'requests_by_model',
  'requests_by_status',
  'requests_by_error_class',
  'requests_in_flight',
  'requests_agent_session',
  'requests_replay_of',
];
/** Rows a commit, a checkpoint and a full-text pass, as the bench's c=1 runs write them (about 110 requests a second). */
const REPLAY_SHAPE = { rowsPerCommit: 110, rowsPerCheckpoint: 1100, rowsPerIndexPass: 600, replays: 3 };

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? Number.NaN;

function main(): void {
  const [sourcePath, roundsArgument] = process.argv.slice(2);
  if (sourcePath === undefined) throw new Error('usage: node test/bench/logIndexCost.ts <requests.db> [rounds]');
  const rounds = Number(roundsArgument ?? 4);
  const variants: Array<{ name: string; dropped: readonly string[] }> = [
    { name: 'every index', dropped: [] },
    ...REQUEST_INDEXES.map((index) => ({ name: `without ${index}`, dropped: [index] })),
    { name: 'without all of them', dropped: REQUEST_INDEXES },
  ];
  const measured = new Map(variants.map((variant) => [variant.name, { requestRows: [] as number[], total: [] as number[] }]));
  for (let round = 0; round < rounds; round += 1) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      const workDir = mkdtempSync(join(tmpdir(), 'airlock-log-index-cost-'));
      try {
        const { usPerRow } = measureLogSqlFloor(sourcePath, {
          ...REPLAY_SHAPE,
          workDir,
          prepareDatabase: (db) => {
            for (const index of variant.dropped) db.exec(`DROP INDEX ${index}`);
          },
        });
        measured.get(variant.name)?.requestRows.push(usPerRow.requestRows);
        measured.get(variant.name)?.total.push(usPerRow.total);
      } finally {
        rmSync(workDir, { recursive: true, force: true });
      }
    }
  }
  for (const [name, { requestRows, total }] of measured) {
    const rows = requestRows.map((us) => us.toFixed(1)).join(' ');
    console.log(
      `${name}: requests rows ${rows} (median ${median(requestRows).toFixed(1)}), total median ${median(total).toFixed(1)} us a row`,
    );
  }
}

main();
