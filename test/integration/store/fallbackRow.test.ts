import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FallbackHop } from '../../../proxy/contracts/log.ts';
import { RequestLogQueries } from '../../../proxy/store/read/queries.ts';
import { openLogDatabase } from '../../../proxy/store/schema.ts';
import { applyRowEvent, maskRowText, rowFromStart } from '../../../proxy/store/write/rowDraft.ts';
import { LogWriter } from '../../../proxy/store/write/writer.ts';
import { endEvent, startEvent } from '../../support/lifecycleEvents.ts';

/** A request that fell back: its row names the step that answered (whose spend it is) and keeps the way it took. */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const CHAIN: FallbackHop[] = [
  { profileId: 'main', model: 'gpt-4o-mini', status: 429, errorClass: 'rate_limited' },
  {
    profileId: 'spare',
    model: 'qwen-plus',
    status: null,
    errorClass: 'budget_exceeded',
    note: 'the budget of profile "spare" would not admit it',
  },
  { profileId: 'backup', model: 'glm-4.6', status: 200, errorClass: null },
];

describe('a row that fell back', () => {
  it('written in flight and again at its end, names the answering profile and model, with its chain', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'airlock-fallback-row-'));
    dirs.push(dir);
    const db = openLogDatabase({ dataDir: dir });
    try {
      const writer = new LogWriter(db);
      const started = rowFromStart(startEvent('alk_fb', { profileId: 'main', upstreamModel: 'gpt-4o-mini' }));
      writer.write({ rows: [started], bodies: [] });
      const ended = applyRowEvent(
        started,
        endEvent('alk_fb', { fallback: { profileId: 'backup', upstreamModel: 'glm-4.6', chain: CHAIN } }),
      );
      writer.write({ rows: [ended], bodies: [] });

      const { row } = new RequestLogQueries(db).getRequest('alk_fb')!;
      expect(row).toMatchObject({ profileId: 'backup', upstreamModel: 'glm-4.6', state: 'done', fallbackChain: CHAIN });
      // A row that did not fall back reads back without a chain.
      writer.write({ rows: [applyRowEvent(rowFromStart(startEvent('alk_plain')), endEvent('alk_plain'))], bodies: [] });
      expect(new RequestLogQueries(db).getRequest('alk_plain')!.row.fallbackChain).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it("masks the chain's models and notes like the row's other free text", () => {
    const row = applyRowEvent(
      rowFromStart(startEvent('alk_m')),
      endEvent('alk_m', {
        fallback: {
          profileId: 'main',
          upstreamModel: 'SECRET-model',
          chain: [{ profileId: 'main', model: 'SECRET-model', status: 503, errorClass: 'upstream_error', note: 'echoed SECRET' }],
        },
      }),
    );
    const masked = maskRowText(row, (text) => text.replaceAll('SECRET', '[redacted]'));
    expect(masked.fallbackChain).toEqual([
      { profileId: 'main', model: '[redacted]-model', status: 503, errorClass: 'upstream_error', note: 'echoed [redacted]' },
    ]);
  });
});
