import { openLogDatabase } from '../../../proxy/store/schema.ts';
import { describe, expect, it, vi } from 'vitest';
import { JSON_HEADERS, rawRequest } from '../../support/http.ts';
import { findSentinel } from '../../support/sentinel.ts';
import { fullDiskForEachTest } from './fullDiskAirlock.ts';

const disk = fullDiskForEachTest();

/** Fills the keyed answers' table and its index up to the file's last page, as fullDiskAirlock.ts's fill() does for the requests. */
function packKeyedAnswers(dataDir: string): void {
  const db = openLogDatabase({ dataDir });
  try {
    db.exec(`PRAGMA max_page_count = ${Number(db.prepare('PRAGMA page_count').get()?.page_count)}`);
    const insert = db.prepare(
      "INSERT INTO idempotent_answers (profile_id, key_hash, request_id, created_at_ms, state) VALUES ('packing', ?, 'alk_packing', ?, 'not_kept')",
    );
    for (let index = 0; index < 100_000; index += 1) {
      try {
        insert.run(`packing-${index}`, Date.now());
      } catch {
        return;
      }
    }
  } finally {
    db.close();
  }
}

describe('a full disk while running', () => {
  it("is a notice for the desktop when a keyed creation's answer cannot be kept for its repeat, as serve says on stderr", async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      // Not one page free, not even in the keyed answers' table: the answer cannot be kept.
      disk.fill();
      packKeyedAnswers(disk.dataDir);
      const run = await disk.start();
      const ended = new Promise<void>((resolve) => run.airlock.proxy.events.subscribe((event) => event.type === 'end' && resolve()));
      const image = await rawRequest(`${run.airlock.proxy.url}/v1/images/generations`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${disk.agentToken}`, 'idempotency-key': 'image-1' },
        body: JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse' }),
      });
      expect(image.status).toBe(200);
      await ended;
      await run.airlock.log.flush();

      const notice = run.airlock.noticeBoard.list().find((candidate) => candidate.kind === 'idempotency_store_failed');
      expect(notice?.cause).toMatch(/full/i);
      expect(notice?.fix).toMatch(/disk space/);
      expect(printed.mock.calls.flat().join('\n')).toContain(notice?.cause);
      const status = await run.status();
      expect(status.notices.map((shown) => shown.kind)).toContain('idempotency_store_failed');
      expect(findSentinel(JSON.stringify(status))).toBeNull();
    } finally {
      printed.mockRestore();
    }
  });
});
