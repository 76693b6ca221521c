import { describe, expect, it } from 'vitest';
import type { RequestListFilter } from '../../../proxy/contracts/log.ts';
import { clampPageLimit, DEFAULT_PAGE_LIMIT, ftsPhrase, whereForFilter } from '../../../proxy/log/queries.ts';

describe('whereForFilter', () => {
  it.each<[string, RequestListFilter, string, Array<string | number>]>([
    ['no filter', {}, '', []],
    ['time range', { fromMs: 10, toMs: 20 }, 'WHERE started_at_ms >= ? AND started_at_ms < ?', [10, 20]],
    ['profile and client', { profileId: 'p', clientName: 'c' }, 'WHERE profile_id = ? AND client_name = ?', ['p', 'c']],
    ['model sent upstream, else requested', { model: 'm' }, 'WHERE COALESCE(upstream_model, requested_model) = ?', ['m']],
    ['exact status', { status: 429 }, 'WHERE status = ?', [429]],
    ['errors', { status: 'error' }, 'WHERE (error_class IS NOT NULL OR status >= 400)', []],
    ['successes', { status: 'ok' }, 'WHERE NOT (error_class IS NOT NULL OR status >= 400) AND status IS NOT NULL', []],
    ['error class', { errorClass: 'rate_limited' }, 'WHERE error_class = ?', ['rate_limited']],
  ])('%s', (_name, filter, sql, params) => {
    expect(whereForFilter(filter)).toEqual({ sql, params });
  });

  it('searches full text with a literal phrase from three characters on', () => {
    const where = whereForFilter({ text: 'hello "world" OR x' });
    expect(where.sql).toContain('MATCH ?');
    const rowPattern = '%hello "world" OR x%';
    expect(where.params).toEqual(['"hello ""world"" OR x"', rowPattern, rowPattern, rowPattern, rowPattern, rowPattern]);
  });

  it('falls back to an escaped substring match for shorter text', () => {
    const where = whereForFilter({ text: '5%' });
    expect(where.sql).toContain('LIKE ?');
    expect(where.params).toEqual(Array.from({ length: 8 }, () => '%5\\%%'));
  });

  it('ignores blank text', () => {
    expect(whereForFilter({ text: '   ' })).toEqual({ sql: '', params: [] });
  });
});

describe('ftsPhrase', () => {
  it.each([
    ['plain', '"plain"'],
    ['say "hi"', '"say ""hi"""'],
    ['a* NEAR(b)', '"a* NEAR(b)"'],
  ])('%s -> %s', (text, phrase) => {
    expect(ftsPhrase(text)).toBe(phrase);
  });
});

describe('clampPageLimit', () => {
  it.each([
    [undefined, DEFAULT_PAGE_LIMIT],
    [0, 1],
    [-5, 1],
    [50, 50],
    [500, 500],
    [10_000, 500],
    [12.7, 12],
    [Number.NaN, DEFAULT_PAGE_LIMIT],
  ])('%s -> %s', (limit, expected) => {
    expect(clampPageLimit(limit)).toBe(expected);
  });
});
