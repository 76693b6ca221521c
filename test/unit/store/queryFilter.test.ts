import { describe, expect, it } from 'vitest';
import type { RequestListFilter } from '../../../proxy/contracts/log.ts';
import { clampPageLimit, DEFAULT_PAGE_LIMIT, jsonForms, trigramQuery, whereForFilter } from '../../../proxy/store/read/queries.ts';

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

  it('searches full text through the trigram index, confirmed by a substring match, from three characters on', () => {
    const where = whereForFilter({ text: 'hello (world) OR x' });
    expect(where.sql).toContain('MATCH ?');
    const pattern = '%hello (world) OR x%';
    const patterns = (count: number): string[] => Array.from({ length: count }, () => pattern);
    // Bodies stored whole (indexed, then waiting), request body pieces (indexed, then waiting), the row's own fields.
    const query = trigramQuery('hello (world) OR x');
    expect(where.params).toEqual([query, ...patterns(6), query, ...patterns(2), ...patterns(5)]);
  });

  it('searches bodies for each form the text takes in JSON, the row fields for the text as typed', () => {
    const where = whereForFilter({ text: 'say "hi"' });
    const forms = ['say "hi"', 'say \\"hi\\"'];
    const queries = forms.map(trigramQuery);
    expect(where.params.filter((param) => queries.includes(String(param)))).toEqual([queries[0], queries[0], queries[1], queries[1]]);
    expect(where.params.slice(-5)).toEqual(Array.from({ length: 5 }, () => '%say "hi"%'));
  });

  it('falls back to an escaped substring match for shorter text', () => {
    const where = whereForFilter({ text: '5%' });
    expect(where.sql).toContain('LIKE ?');
    expect(where.params).toEqual(Array.from({ length: 9 }, () => '%5\\%%'));
  });

  it('ignores blank text', () => {
    expect(whereForFilter({ text: '   ' })).toEqual({ sql: '', params: [] });
  });
});

describe('jsonForms', () => {
  it.each([
    ['plain', ['plain']],
    ['say "hi"\n', ['say "hi"\n', 'say \\"hi\\"\\n']],
    ['C:\\x', ['C:\\x', 'C:\\\\x']],
    ['请 😀', ['请 😀', '\\u8bf7 \\ud83d\\ude00']],
    ['"请"', ['"请"', '\\"请\\"', '\\"\\u8bf7\\"']],
  ])('%j -> %j', (text, forms) => {
    expect(jsonForms(text)).toEqual(forms);
  });
});

describe('trigramQuery', () => {
  it.each([
    ['abc', '"abc"'],
    ['abcd', '"abc" AND "bcd"'],
    ['aaaa', '"aaa"'],
    ['say "hi"', '"say" AND "ay " AND "y """ AND " ""h" AND """hi" AND "hi"""'],
    ['a* NEAR(b)', '"a* " AND "* N" AND " NE" AND "NEA" AND "EAR" AND "AR(" AND "R(b" AND "(b)"'],
    ['翻译成英文', '"翻译成" AND "译成英" AND "成英文"'],
    ['😀ab', '"😀ab"'],
  ])('%s -> %s', (text, query) => {
    expect(trigramQuery(text)).toBe(query);
  });

  it('asks for at most 32 trigrams of a long text', () => {
    const text = Array.from({ length: 100 }, (_, index) => String.fromCharCode(0x4e00 + index)).join('');
    expect(trigramQuery(text).split(' AND ')).toHaveLength(32);
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
