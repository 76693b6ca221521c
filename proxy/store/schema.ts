import { randomInt } from 'node:crypto';
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

export const DATABASE_FILE_NAME = 'requests.db';
const PRIVATE_FILE_MODE = 0o600;
/** Linux's own limit on the links one path lookup follows before ELOOP (path_resolution(7)). */
const MAX_LINKS_FOLLOWED = 40;

/**
 * Migrations in order; `PRAGMA user_version` records how many have run. Never edit a shipped
 * entry: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE requests (
    id TEXT PRIMARY KEY,
    upstream_request_id TEXT,
    started_at_ms INTEGER NOT NULL,
    ttfb_ms INTEGER,
    duration_ms INTEGER,
    client_name TEXT,
    profile_id TEXT,
    method TEXT NOT NULL,
    client_path TEXT NOT NULL,
    upstream_path TEXT NOT NULL,
    protocol TEXT NOT NULL CHECK (protocol IN ('openai', 'anthropic', 'responses')),
    protocol_mode TEXT NOT NULL,
    requested_model TEXT,
    upstream_model TEXT,
    response_model TEXT,
    model_mismatch INTEGER NOT NULL DEFAULT 0,
    stream INTEGER NOT NULL DEFAULT 0,
    notes TEXT NOT NULL DEFAULT '[]',
    status INTEGER,
    error_class TEXT,
    error_message TEXT,
    retries INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cached_input_tokens INTEGER,
    reasoning_tokens INTEGER,
    cost_credits REAL,
    usage_source TEXT CHECK (usage_source IN ('reported', 'estimated')),
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'done', 'interrupted'))
  );
  -- Each filter index ends in (started_at_ms, id): a filtered page is then read in order, unsorted.
  CREATE INDEX requests_by_time ON requests (started_at_ms, id);
  CREATE INDEX requests_by_profile ON requests (profile_id, started_at_ms, id);
  CREATE INDEX requests_by_client ON requests (client_name, started_at_ms, id);
  CREATE INDEX requests_by_model ON requests (COALESCE(upstream_model, requested_model), started_at_ms, id);
  CREATE INDEX requests_by_status ON requests (status, started_at_ms, id);
  CREATE INDEX requests_by_error_class ON requests (error_class, started_at_ms, id);
  CREATE INDEX requests_in_flight ON requests (state) WHERE state = 'in_flight';

  -- An INTEGER PRIMARY KEY keeps rowids stable across VACUUM, which the FTS index relies on.
  CREATE TABLE request_bodies (
    body_id INTEGER PRIMARY KEY,
    request_id TEXT NOT NULL UNIQUE REFERENCES requests (id) ON DELETE CASCADE,
    -- UTF-8 bytes of the texts below, so retention can size a deletion without reading them.
    -- Small columns come first: reading them then never walks a large body's overflow pages.
    stored_bytes INTEGER NOT NULL DEFAULT 0,
    request_truncated INTEGER NOT NULL DEFAULT 0,
    response_truncated INTEGER NOT NULL DEFAULT 0,
    request_headers TEXT NOT NULL,
    response_headers TEXT NOT NULL,
    request_body TEXT,
    response_body TEXT,
    stream_text TEXT,
    raw_events TEXT
  );

  -- Trigram tokens give substring search in any script (CJK included). Raw events are left out:
  -- their text is already in stream_text.
  CREATE VIRTUAL TABLE request_bodies_fts USING fts5 (
    request_body, response_body, stream_text,
    content = 'request_bodies', content_rowid = 'body_id', tokenize = 'trigram'
  );
  CREATE TRIGGER request_bodies_fts_insert AFTER INSERT ON request_bodies BEGIN
    INSERT INTO request_bodies_fts (rowid, request_body, response_body, stream_text)
    VALUES (new.body_id, new.request_body, new.response_body, new.stream_text);
  END;
  CREATE TRIGGER request_bodies_fts_delete AFTER DELETE ON request_bodies BEGIN
    INSERT INTO request_bodies_fts (request_bodies_fts, rowid, request_body, response_body, stream_text)
    VALUES ('delete', old.body_id, old.request_body, old.response_body, old.stream_text);
  END;
  `,
  `
  -- Indexing one body per INSERT trigger cost more than everything else a logged request does, so
  -- bodies now enter the full-text index in bulk, off the write path (fullTextBackfill.ts). This
  -- table lists the bodies not indexed yet; searches index them first, so results stay complete.
  CREATE TABLE request_bodies_unindexed (body_id INTEGER PRIMARY KEY);
  DROP TRIGGER request_bodies_fts_insert;
  CREATE TRIGGER request_bodies_unindexed_insert AFTER INSERT ON request_bodies BEGIN
    INSERT INTO request_bodies_unindexed (body_id) VALUES (new.body_id);
  END;
  -- Only an indexed body has entries to delete; telling FTS5 to delete absent ones corrupts it.
  DROP TRIGGER request_bodies_fts_delete;
  CREATE TRIGGER request_bodies_fts_delete AFTER DELETE ON request_bodies BEGIN
    INSERT INTO request_bodies_fts (request_bodies_fts, rowid, request_body, response_body, stream_text)
    SELECT 'delete', old.body_id, old.request_body, old.response_body, old.stream_text
    WHERE NOT EXISTS (SELECT 1 FROM request_bodies_unindexed WHERE body_id = old.body_id);
    DELETE FROM request_bodies_unindexed WHERE body_id = old.body_id;
  END;
  `,
  `
  -- FTS5 merges 4 same-size segments by default, so each indexed byte was rewritten many times
  -- as the index grew; merging 16 at a time makes a bulk index pass about a fifth cheaper.
  -- A search reads a few more segments; retention's 'optimize' folds them into one after deleting.
  INSERT INTO request_bodies_fts (request_bodies_fts, rank) VALUES ('automerge', 16);
  `,
  `
  -- Most requests succeed: only failed ones need an entry for the error class filter, and the
  -- planner uses a partial index for "error_class = ?", which implies IS NOT NULL.
  DROP INDEX requests_by_error_class;
  CREATE INDEX requests_by_error_class ON requests (error_class, started_at_ms, id) WHERE error_class IS NOT NULL;
  `,
  `
  -- A trigger ran once per body to list it as unindexed; the writer now lists a batch's bodies in
  -- one statement (LogWriter), which costs a few microseconds less per logged request.
  DROP TRIGGER request_bodies_unindexed_insert;
  `,
  `
  -- docs/gateway-spec.md §3: a repeated image or video creation is answered from its first answer, also
  -- after a restart. One row per (profile, idempotency key); the key itself is stored hashed.
  -- 'in_flight' left by a crashed run means the outcome is unknown: such a repeat is refused.
  CREATE TABLE idempotent_answers (
    profile_id TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    request_id TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'answered', 'not_kept')),
    status INTEGER,
    headers TEXT,
    body BLOB,
    PRIMARY KEY (profile_id, key_hash)
  );
  CREATE INDEX idempotent_answers_by_age ON idempotent_answers (created_at_ms);
  `,
  `
  -- Positions in the full-text index were only there for phrase queries, and they made the index
  -- about four times the size of the small bodies it covers (twice for long prose) and indexing
  -- half again slower. Without them FTS5 finds the bodies holding every trigram of the text, and a
  -- LIKE on those few confirms the substring (RequestLogQueries). The new index starts empty: every
  -- body waits for the background pass again, and searches read the waiting ones directly.
  -- The delete trigger of migration 2 stays: it names the index, and the new one has that name.
  DROP TABLE request_bodies_fts;
  CREATE VIRTUAL TABLE request_bodies_fts USING fts5 (
    request_body, response_body, stream_text,
    content = 'request_bodies', content_rowid = 'body_id', tokenize = 'trigram', detail = 'none'
  );
  INSERT INTO request_bodies_fts (request_bodies_fts, rank) VALUES ('automerge', 16);
  INSERT OR IGNORE INTO request_bodies_unindexed (body_id) SELECT body_id FROM request_bodies;
  `,
  `
  -- Which agent session a request belongs to and a first line of its prompt or answer, for the
  -- list and the spend by session. Older rows keep NULL: their bodies may be gone by now.
  ALTER TABLE requests ADD COLUMN agent_session_id TEXT;
  ALTER TABLE requests ADD COLUMN summary TEXT;
  CREATE INDEX requests_agent_session ON requests (agent_session_id, started_at_ms) WHERE agent_session_id IS NOT NULL;
  `,
  `
  -- When each raw stream event arrived (ms since the request started), packed as varint gaps
  -- (core/eventOffsets.ts): about a byte an event. Older bodies keep NULL and show no times.
  ALTER TABLE request_bodies ADD COLUMN raw_event_offsets BLOB;
  `,
  `
  -- A conversation sends its whole history again every turn: a 100-turn session stored it about
  -- 100 times. A request body is now stored as the list of its pieces (requestChunks.ts), each
  -- distinct piece once (body_chunks, by its SHA-256), and request_bodies.request_body stays NULL
  -- for such a body. Rows written before keep their body inline and are read as before.
  CREATE TABLE body_chunks (
    chunk_id INTEGER PRIMARY KEY,
    sha256 BLOB NOT NULL UNIQUE,
    stored_bytes INTEGER NOT NULL,
    text TEXT NOT NULL
  );
  -- The body's pieces in order (a JSON array of chunk ids), and the bytes of the pieces this body
  -- was the first to store (what deleting it may free, for retention's estimate). Its own table:
  -- request_bodies keeps its small columns before the large ones.
  CREATE TABLE request_body_chunk_lists (
    body_id INTEGER PRIMARY KEY,
    added_bytes INTEGER NOT NULL,
    chunk_ids TEXT NOT NULL
  );
  -- Which bodies hold a piece: search maps a piece's hit to its rows, and a piece is deleted with
  -- the last body holding it.
  CREATE TABLE request_body_chunks (
    chunk_id INTEGER NOT NULL,
    body_id INTEGER NOT NULL,
    PRIMARY KEY (chunk_id, body_id)
  ) WITHOUT ROWID;
  CREATE TRIGGER request_bodies_chunk_list_delete AFTER DELETE ON request_bodies BEGIN
    DELETE FROM request_body_chunk_lists WHERE body_id = old.body_id;
  END;
  CREATE TRIGGER request_body_chunk_lists_release AFTER DELETE ON request_body_chunk_lists BEGIN
    DELETE FROM request_body_chunks WHERE body_id = old.body_id AND chunk_id IN (SELECT value FROM json_each(old.chunk_ids));
    DELETE FROM body_chunks WHERE chunk_id IN (SELECT value FROM json_each(old.chunk_ids))
      AND NOT EXISTS (SELECT 1 FROM request_body_chunks r WHERE r.chunk_id = body_chunks.chunk_id);
  END;

  -- Each piece is indexed once, like the bodies (trigram, no positions, filled in the background).
  CREATE TABLE body_chunks_unindexed (chunk_id INTEGER PRIMARY KEY);
  CREATE VIRTUAL TABLE body_chunks_fts USING fts5 (
    text, content = 'body_chunks', content_rowid = 'chunk_id', tokenize = 'trigram', detail = 'none'
  );
  INSERT INTO body_chunks_fts (body_chunks_fts, rank) VALUES ('automerge', 16);
  CREATE TRIGGER body_chunks_fts_delete AFTER DELETE ON body_chunks BEGIN
    INSERT INTO body_chunks_fts (body_chunks_fts, rowid, text)
    SELECT 'delete', old.chunk_id, old.text
    WHERE NOT EXISTS (SELECT 1 FROM body_chunks_unindexed WHERE chunk_id = old.chunk_id);
    DELETE FROM body_chunks_unindexed WHERE chunk_id = old.chunk_id;
  END;
  `,
  `
  -- The steps a request took when it fell back to another model or profile (JSON, NULL when it did
  -- not); profile_id and upstream_model then name the step that answered, which spent the money.
  ALTER TABLE requests ADD COLUMN fallback_chain TEXT;
  `,
  `
  -- A pooled profile's key per attempt (JSON: id and label, never the key); NULL for one key.
  ALTER TABLE requests ADD COLUMN gateway_keys TEXT;
  `,
  `
  -- A replay (the window's or \`airlock replay\`) names the request it resent, so each detail links to
  -- the other. Only replays have it: the partial index finds an original's replays without a scan.
  ALTER TABLE requests ADD COLUMN replay_of TEXT;
  CREATE INDEX requests_replay_of ON requests (replay_of, started_at_ms) WHERE replay_of IS NOT NULL;
  `,
  `
  -- A key reused for another request (another body or path) is refused, not answered with the first
  -- answer: each key keeps a hash of its first request. Older entries keep NULL and are not compared.
  ALTER TABLE idempotent_answers ADD COLUMN request_fingerprint TEXT;
  `,
  `
  -- What the gateway says it charged (OpenRouter's usage.cost, LiteLLM's response cost), in its own
  -- unit, beside Airlock's price of the request; NULL when it says nothing. Never counted by caps.
  ALTER TABLE requests ADD COLUMN gateway_cost REAL;
  `,
  `
  -- A failed request's code where it says more than its class (the gateway's, or Airlock's own such
  -- as stream_ended_early): the window explains the row by it. Older rows keep NULL and are
  -- explained by their message's start, as before.
  ALTER TABLE requests ADD COLUMN error_code TEXT;
  `,
  `
  -- A fallback's runs on a profile it left are that profile's spend (the chain's hop costCredits):
  -- per-profile sums read the rows with a chain in a time range, which this finds without the others.
  CREATE INDEX requests_with_fallback ON requests (started_at_ms) WHERE fallback_chain IS NOT NULL;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export interface OpenLogDatabaseOptions {
  dataDir: string;
  /** A hard cap on the file size (PRAGMA max_page_count); writes past it fail with SQLITE_FULL. */
  maxDbBytes?: number;
}

/** Opens (creating if needed) `<dataDir>/requests.db` in WAL mode and brings the schema up to date. */
export function openLogDatabase(options: OpenLogDatabaseOptions): DatabaseSync {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = join(options.dataDir, DATABASE_FILE_NAME);
  createPrivately(file);
  const db = new DatabaseSync(file, { timeout: 5_000 });
  try {
    // auto_vacuum must be chosen before the first table exists; incremental lets retention
    // hand freed pages back to the file system without a full VACUUM.
    db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    db.exec('PRAGMA journal_mode = WAL');
    // NORMAL in WAL mode: a power cut may lose the last commits, never corrupts the file.
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    // Before the migrations: an upgrade's new tables are writes like any other.
    if (options.maxDbBytes !== undefined) applyMaxDbBytes(db, options.maxDbBytes);
    migrate(db);
    giveIdentity(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Creates the log's file 0600 before SQLite opens it: SQLite gives the WAL and shared-memory files
 * the database's own permissions, and would create all three readable by everyone (0644). Only a
 * file not there yet is opened: closing any descriptor of a file drops every POSIX lock the process
 * holds on it (sqlite.org/howtocorrupt.html, 2.2), and the log thread opens the file while the main
 * connection holds the shared lock that tells other processes the log is in use. Without that
 * lock, the sqlite3 shell or a backup script closing its own connection took the log for unused
 * and deleted its WAL under Airlock ("WAL checkpoint failed: disk I/O error"; otherProcessReader.test.ts).
 * A link to nothing (the log kept on another disk, its file deleted) is followed to where it points:
 * O_CREAT|O_EXCL refuses any link (open(2)), and SQLite would then create the target itself, 0644.
 */
function createPrivately(file: string): void {
  let target = file;
  for (let links = 0; links <= MAX_LINKS_FOLLOWED; links += 1) {
    try {
      closeSync(openSync(target, 'wx', PRIVATE_FILE_MODE));
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && target !== file) {
        throw new Error(
          `${file} is a link to ${target}, whose folder is missing, so the request log cannot be made there: connect the disk it is on, or delete the link to keep the log in ${dirname(file)}, then start Airlock again.`,
        );
      }
      if (code !== 'EEXIST') throw error;
    }
    // A file, or a link to one, is there: SQLite opens it as it is (makeDataDirPrivate narrows its mode).
    if (!lstatSync(target).isSymbolicLink() || existsSync(target)) return;
    // From the folder the link is really in, as the kernel reads a relative link's `..`: a data directory that is
    // itself a link would otherwise have its target made beside the link, and SQLite make the real one 0644.
    target = resolve(realpathSync(dirname(target)), readlinkSync(target));
  }
  throw new Error(
    `${file} leads through more than ${MAX_LINKS_FOLLOWED} links (or round a loop of them): point it at the request log's file, then start Airlock again.`,
  );
}

/**
 * The log's schema is a newer Airlock's (a roll-back): its tables may hold columns, rows and rules
 * this one does not know, so it is neither migrated nor written, and is left as it is for that
 * Airlock. The start goes on without it (app/runOnlyLog.ts).
 */
export class NewerLogError extends Error {
  readonly schemaVersion: number;

  constructor(schemaVersion: number) {
    super(
      `The request log ${DATABASE_FILE_NAME} (schema ${schemaVersion}) was written by a newer Airlock (this one knows ${SCHEMA_VERSION}); update Airlock or move ${DATABASE_FILE_NAME} aside.`,
    );
    this.name = 'NewerLogError';
    this.schemaVersion = schemaVersion;
  }
}

function migrate(db: DatabaseSync): void {
  const version = Number(readPragma(db, 'user_version'));
  if (version > SCHEMA_VERSION) throw new NewerLogError(version);
  for (let next = version; next < SCHEMA_VERSION; next += 1) {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(MIGRATIONS[next] ?? '');
      db.exec(`PRAGMA user_version = ${next + 1}`);
      db.exec('COMMIT');
    } catch (error) {
      // A full disk can end the transaction itself: a ROLLBACK then would hide the cause.
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
  }
}

/**
 * A random application_id per log, in the header of page 1, so the image of page 1 a WAL would
 * install, its newest, names the database it was written for (foreignWal.ts): the WAL's own
 * header names none, and SQLite replays any WAL beside the file. Images of page 1 written before
 * this in the same WAL (the pragmas, the migrations) hold none. Best effort: without it (a full
 * disk) the check cannot tell, as before, and the next open tries again.
 */
function giveIdentity(db: DatabaseSync): void {
  try {
    if (Number(readPragma(db, 'application_id')) === 0) db.exec(`PRAGMA application_id = ${randomInt(1, 2 ** 31)}`);
  } catch {
    // Left without one: see above.
  }
}

function applyMaxDbBytes(db: DatabaseSync, maxDbBytes: number): void {
  const pageSizeBytes = Number(readPragma(db, 'page_size'));
  const maxPages = Math.max(1, Math.floor(maxDbBytes / pageSizeBytes));
  db.exec(`PRAGMA max_page_count = ${maxPages}`);
}

export function readPragma(db: DatabaseSync, name: string): unknown {
  const row = db.prepare(`PRAGMA ${name}`).get();
  return row === undefined ? undefined : Object.values(row)[0];
}

/** Bytes the database pages occupy, free pages excluded. */
export function usedDatabaseBytes(db: DatabaseSync): number {
  const pageSizeBytes = Number(readPragma(db, 'page_size'));
  return (Number(readPragma(db, 'page_count')) - Number(readPragma(db, 'freelist_count'))) * pageSizeBytes;
}

export function databaseFileBytes(db: DatabaseSync): number {
  return Number(readPragma(db, 'page_count')) * Number(readPragma(db, 'page_size'));
}
