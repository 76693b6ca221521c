import { describe, expect, it } from 'vitest';
import type { RequestListQuery } from '../../../proxy/contracts/requests.ts';
import type { SpendResponse } from '../../../proxy/contracts/spend.ts';
import { requestQueryString } from '../../../renderer/src/api/query.ts';
import { loginCodeFromHash } from '../../../renderer/src/api/client.ts';
import { screenFromHash } from '../../../renderer/src/common/useHashRoute.ts';
import { EMPTY_FILTER_FORM, filterProblems, filtersFromForm, type FilterForm } from '../../../renderer/src/live/filterForm.ts';
import { nextIndex } from '../../../renderer/src/live/RequestList.tsx';
import { chartData, quoteTopUp } from '../../../renderer/src/spend/spendMath.ts';
import { describeCost, formatRowCost, showInvisible } from '../../../renderer/src/common/format.ts';

describe('requestQueryString', () => {
  it.each<[RequestListQuery, string]>([
    [{}, ''],
    [{ model: 'gpt-4o', status: 'error' }, '?model=gpt-4o&status=error'],
    [{ status: 429, limit: 200 }, '?status=429&limit=200'],
    [{ text: '  hello world  ', client: '' }, '?text=hello+world'],
    [{ cursor: 'abc', fromMs: 10, errorClass: 'auth' }, '?fromMs=10&errorClass=auth&cursor=abc'],
    [{ profileId: 'a&b=c' }, '?profileId=a%26b%3Dc'],
  ])('%j → %s', (query, expected) => {
    expect(requestQueryString(query)).toBe(expected);
  });
});

describe('filtersFromForm', () => {
  const nowMs = 1_000_000_000;
  it.each<[Partial<FilterForm>, ReturnType<typeof filtersFromForm>]>([
    [{}, {}],
    [{ window: '1h' }, { fromMs: nowMs - 3_600_000 }],
    [{ status: 'ok' }, { status: 'ok' }],
    [{ status: ' 502 ' }, { status: 502 }],
    [{ status: '5xx' }, {}],
    [{ status: 'Failed' }, { status: 'error' }],
    [{ status: 'success' }, { status: 'ok' }],
    [{ model: 'gpt-4*' }, { model: 'gpt-4*' }],
    [{ model: 'gpt*4' }, {}],
    [
      { errorClass: 'rate_limited', text: ' needle ' },
      { errorClass: 'rate_limited', text: 'needle' },
    ],
    [
      { profileId: ' main ', model: 'm', client: 'aider' },
      { profileId: 'main', model: 'm', client: 'aider' },
    ],
  ])('%j', (form, expected) => {
    expect(filtersFromForm({ ...EMPTY_FILTER_FORM, ...form }, nowMs)).toEqual(expected);
  });
});

describe('filterProblems', () => {
  it('names every typed value the filters cannot use, and none for those they can', () => {
    expect(filterProblems({ ...EMPTY_FILTER_FORM, status: 'failed', model: 'qwen*' })).toEqual({});
    const problems = filterProblems({ ...EMPTY_FILTER_FORM, status: 'broken', model: '*mini' });
    expect(problems.status).toContain('"broken" is not a status');
    expect(problems.model).toContain('* only at the end');
  });

  it('says a search longer than the log searches for, and leaves it out of the filters instead of failing the list', () => {
    const pasted = 'a sentence from a long prompt. '.repeat(20);
    const form = { ...EMPTY_FILTER_FORM, text: pasted };
    expect(filterProblems(form).text).toMatch(/at most 500 characters.*shorter part/);
    expect(filtersFromForm(form, 0).text).toBeUndefined();
    expect(filterProblems({ ...EMPTY_FILTER_FORM, text: 'x'.repeat(500) }).text).toBeUndefined();
  });
});

describe('list keyboard navigation', () => {
  it.each<[string, number, number, number | null]>([
    ['ArrowDown', 0, 10, 1],
    ['ArrowDown', 9, 10, 9],
    ['ArrowUp', 0, 10, 0],
    ['ArrowDown', -1, 10, 0],
    ['PageDown', 0, 100, 15],
    ['PageUp', 5, 100, 0],
    ['Home', 50, 100, 0],
    ['End', 0, 100, 99],
    ['a', 3, 10, null],
    ['ArrowDown', 0, 0, null],
  ])('%s from %i of %i → %s', (key, current, count, expected) => {
    expect(nextIndex(key, current, count)).toBe(expected);
  });
});

describe('login code and screens from the URL fragment', () => {
  it.each([
    ['#code=abc_DEF-123', 'abc_DEF-123'],
    ['code=xyz', 'xyz'],
    ['#/live', null],
    ['#code=', null],
    ['', null],
  ])('loginCodeFromHash(%s) = %s', (hash, expected) => {
    expect(loginCodeFromHash(hash)).toBe(expected);
  });

  it.each([
    ['#/spend', 'spend'],
    ['#/connect', 'connect'],
    ['#code=abc', 'live'],
    ['#/nope', 'live'],
    ['', 'live'],
  ])('screenFromHash(%s) = %s', (hash, expected) => {
    expect(screenFromHash(hash)).toBe(expected);
  });
});

describe('spend display', () => {
  const rates: SpendResponse['rates'] = {
    cnyPerCredit: 0.75,
    usdPerCreditApprox: 0.11,
    topUpTiers: [
      { minCredits: 1000, discountPercent: 2 },
      { minCredits: 100, discountPercent: 1 },
      { minCredits: 500, discountPercent: 1.5 },
    ],
  };

  it.each([
    [50, 0, 37.5, 5.5, 100],
    [100, 1, 74.25, 10.89, 500],
    [500, 1.5, 369.38, 54.18, 1000],
    [2000, 2, 1470, 215.6, null],
  ])('a top-up of %i credits: %f%% off, ¥%f, $%f, next tier %s', (credits, discountPercent, payCny, payUsdApprox, nextTier) => {
    const quote = quoteTopUp(credits, rates);
    expect(quote).toMatchObject({ discountPercent, payCny, payUsdApprox });
    expect(quote.nextTier?.minCredits ?? null).toBe(nextTier);
  });

  it('stacks a chart per day with the most expensive model first and zeros for missing days', () => {
    const data = chartData([
      { day: '2026-01-01', creditsByModel: { a: 1, b: 5 }, gatewayCost: null, gatewayCostMixed: false, unstatedRequests: 0 },
      { day: '2026-01-02', creditsByModel: { a: 2 }, gatewayCost: null, gatewayCostMixed: false, unstatedRequests: 0 },
    ]);
    expect(data.models).toEqual(['b', 'a']);
    expect(data.rows.map((row) => ({ day: row.day, ...row.credits }))).toEqual([
      { day: '2026-01-01', a: 1, b: 5 },
      { day: '2026-01-02', a: 2, b: 0 },
    ]);
  });

  it('keeps a model named `day` apart from the day it is charted on', () => {
    const data = chartData([
      { day: '2026-01-01', creditsByModel: { day: 4, 'gpt-4.1': 1 }, gatewayCost: null, gatewayCostMixed: false, unstatedRequests: 0 },
    ]);
    expect(data.rows).toEqual([{ day: '2026-01-01', credits: { day: 4, 'gpt-4.1': 1 } }]);
  });

  it("charts a model named like an object's own property as a model, 0 on a day without it", () => {
    // As the window gets them: parsed from the answer's JSON.
    const days = JSON.parse(
      '[{"day":"2026-01-01","creditsByModel":{"a":1},"gatewayCost":null,"unstatedRequests":0},' +
        '{"day":"2026-01-02","creditsByModel":{"constructor":2,"__proto__":3},"gatewayCost":null,"unstatedRequests":0}]',
    );
    const data = chartData(days);
    expect(data.models).toEqual(['__proto__', 'constructor', 'a']);
    expect(data.rows.map((row) => [row.day, Object.entries(row.credits)])).toEqual([
      [
        '2026-01-01',
        [
          ['__proto__', 0],
          ['constructor', 0],
          ['a', 1],
        ],
      ],
      [
        '2026-01-02',
        [
          ['__proto__', 3],
          ['constructor', 2],
          ['a', 0],
        ],
      ],
    ]);
  });
});

describe('a request cost in the Live list and the detail', () => {
  it.each([
    { name: 'priced', costCredits: 0.25, inputTokens: 10, cell: '0.25', detail: '0.25 credits' },
    { name: 'answered by a model without a price', costCredits: null, inputTokens: 10, cell: 'unpriced', detail: 'unpriced' },
    {
      name: 'refused or failed before any answer',
      costCredits: null,
      inputTokens: null,
      cell: '—',
      detail: 'none: no model answered, so there is no usage to price',
    },
  ])('$name', ({ costCredits, inputTokens, cell, detail }) => {
    expect(formatRowCost({ costCredits, inputTokens })).toBe(cell);
    expect(describeCost({ costCredits, inputTokens })).toBe(detail);
  });
});

describe('names a client or gateway chose', () => {
  it('write out their invisible characters and leave the visible ones, other scripts and emoji alone', () => {
    expect(showInvisible('\u202Egpt\u200B-4o-mini')).toBe('⟨U+202E⟩gpt⟨U+200B⟩-4o-mini');
    expect(showInvisible('\uFEFFqwen\u2066-max\u2069')).toBe('⟨U+FEFF⟩qwen⟨U+2066⟩-max⟨U+2069⟩');
    expect(showInvisible('deepseek-chat 深度 عربى 👍')).toBe('deepseek-chat 深度 عربى 👍');
  });

  it('leave the joiners that writing needs: in an emoji sequence, or a Persian or Hindi word', () => {
    // ZWJ builds emoji sequences (Unicode TS #51); ZWNJ and ZWJ shape Persian and Indic words (Unicode 15, 23.2).
    for (const text of ['Team 👩\u200D👩\u200D👧', 'Dev 🧑\u200D💻', 'می\u200Cخواهم', 'क्\u200Dष']) expect(showInvisible(text)).toBe(text);
  });

  it('still write out a joiner among ASCII or at the edge of a word, where it only hides a difference', () => {
    expect(showInvisible('gpt\u200D-4o')).toBe('gpt⟨U+200D⟩-4o');
    expect(showInvisible('\u200Cmain')).toBe('⟨U+200C⟩main');
    expect(showInvisible('深度\u200D')).toBe('深度⟨U+200D⟩');
    expect(showInvisible('👍\u200D gpt')).toBe('👍⟨U+200D⟩ gpt');
  });
});
