import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { RequestLogRow, SpendByDayRow } from '../../../../proxy/contracts/log.ts';
import { requestsCsv, spendCsv } from '../../../../proxy/app/export/csv.ts';
import { CNY_PER_CREDIT } from '../../../../proxy/spend/constants.ts';
import { REDACTED } from '../../../../proxy/core/redact.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { logRow } from './exportRows.ts';

function parsed(text: string): Record<string, string>[] {
  return parse(text, { columns: true, skip_empty_lines: true });
}

describe('requestsCsv', () => {
  it.each<[string, Partial<RequestLogRow>, Record<string, string>]>([
    [
      'a priced request: figures as numbers, times as ISO UTC',
      {},
      {
        started_at: '2026-11-20T09:30:00.000Z',
        status: '200',
        input_tokens: '12',
        cost_credits: '0.0042',
        stream: 'false',
        error_class: '',
      },
    ],
    [
      'an unpriced request: cost empty, never 0',
      { costCredits: null, usageSource: 'estimated' },
      { cost_credits: '', usage_source: 'estimated' },
    ],
    ['float noise in a cost is cut', { costCredits: 0.1 + 0.2 }, { cost_credits: '0.3' }],
    [
      'a failure keeps class and message',
      { status: 429, errorClass: 'rate_limited', errorMessage: 'slow down, "agent"' },
      { error_class: 'rate_limited', error_message: 'slow down, "agent"' },
    ],
    [
      'text with commas and newlines survives',
      { clientPath: '/v1/x?a=1,b=2', errorMessage: 'line one\nline two' },
      { path: '/v1/x?a=1,b=2', error_message: 'line one\nline two' },
    ],
    [
      'a model named like a formula is defused for spreadsheets',
      { requestedModel: '=HYPERLINK("http://x")' },
      { requested_model: `'=HYPERLINK("http://x")` },
    ],
    ['a key in an error message is masked', { errorMessage: `bad key ${SENTINEL_KEY}` }, { error_message: `bad key ${REDACTED}` }],
    [
      'a request that neither fell back, used a pool, was a replay nor joined a session: those cells empty',
      {},
      { agent_session: '', replay_of: '', fallback_chain: '', gateway_keys: '' },
    ],
    [
      'the fallback chain in one cell, each step with its status and class, in order',
      {
        fallbackChain: [
          { profileId: 'main', model: 'gpt-4o-mini', status: 503, errorClass: 'upstream_error' },
          { profileId: 'backup', model: 'qwen-plus', status: 200, errorClass: null },
        ],
      },
      { fallback_chain: 'main/gpt-4o-mini 503 upstream_error > backup/qwen-plus 200' },
    ],
    [
      'a skipped step says why; a step with no answer and no model says so',
      {
        fallbackChain: [
          { profileId: 'main', model: 'gpt-4o-mini', status: null, errorClass: 'timeout_connect' },
          { profileId: 'backup', model: null, status: null, errorClass: 'budget_exceeded', note: 'its daily cap is reached' },
        ],
      },
      { fallback_chain: 'main/gpt-4o-mini no answer timeout_connect > backup skipped (its daily cap is reached)' },
    ],
    [
      "a pool's keys by label and id, never the key",
      {
        gatewayKeys: [
          { keyId: 'main', label: 'key 1' },
          { keyId: '8a8651', label: 'team B' },
        ],
      },
      { gateway_keys: 'key 1 (main) > team B (8a8651)' },
    ],
    [
      'a key in a step note or a key label is masked',
      {
        fallbackChain: [{ profileId: 'b', model: null, status: null, errorClass: null, note: `saw ${SENTINEL_KEY}` }],
        gatewayKeys: [{ keyId: 'k1', label: SENTINEL_KEY }],
      },
      { fallback_chain: `b skipped (saw ${REDACTED})`, gateway_keys: `${REDACTED} (k1)` },
    ],
    [
      // The log masked them with the keys it knew then; a key set since, or one a client pasted as a model, is known now.
      'a key in the path or a model name is masked',
      {
        clientPath: `/v1/chat/completions?key=${SENTINEL_KEY}`,
        requestedModel: `a-${SENTINEL_KEY}`,
        upstreamModel: `b-${SENTINEL_KEY}`,
        responseModel: `c-${SENTINEL_KEY}`,
      },
      {
        path: `/v1/chat/completions?key=${REDACTED}`,
        requested_model: `a-${REDACTED}`,
        upstream_model: `b-${REDACTED}`,
        response_model: `c-${REDACTED}`,
      },
    ],
    [
      "a replay names its original, a turn its agent's session",
      { replayOf: 'alk_1699999999999_z', agentSessionId: '3f1c2a9e-session' },
      { replay_of: 'alk_1699999999999_z', agent_session: '3f1c2a9e-session' },
    ],
    [
      "the gateway's own statement of its charge in a column of its own unit, beside Airlock's cost and never in it",
      { gatewayCost: 0.000348 },
      { gateway_cost_gateway_unit: '0.000348', cost_credits: '0.0042' },
    ],
    ['a gateway that stated no charge: that cell empty, never 0', {}, { gateway_cost_gateway_unit: '' }],
  ])('%s', (_name, overrides, expected) => {
    const [record] = parsed(requestsCsv([logRow(overrides)], { header: true, knownSecrets: [SENTINEL_KEY] }));
    expect(record).toMatchObject(expected);
  });

  it('writes one record per row under one header, and pages after the first without it', () => {
    const first = requestsCsv([logRow({ id: 'a' }), logRow({ id: 'b' })], { header: true, knownSecrets: [] });
    const next = requestsCsv([logRow({ id: 'c' })], { header: false, knownSecrets: [] });
    const records = parsed(first + next);
    expect(records.map((record) => record.id)).toEqual(['a', 'b', 'c']);
    expect(Object.keys(records[0] ?? {})).toContain('cost_credits');
  });

  it("adds the gateway's charge as the last column, so spreadsheets built on the earlier columns keep their places", () => {
    const header = Object.keys(parsed(requestsCsv([logRow()], { header: true, knownSecrets: [] }))[0] ?? {});
    expect(header.at(-1)).toBe('gateway_cost_gateway_unit');
  });

  it('an empty export is the header line alone', () => {
    expect(requestsCsv([], { header: true, knownSecrets: [] }).trim().split('\n')).toHaveLength(1);
  });

  it('never holds the key', () => {
    expect(findSentinel(requestsCsv([logRow({ errorMessage: SENTINEL_KEY })], { header: true, knownSecrets: [SENTINEL_KEY] }))).toBeNull();
  });
});

describe('spendCsv', () => {
  const day = (overrides: Partial<SpendByDayRow>): SpendByDayRow => ({
    day: '2026-11-20',
    group: 'gpt-4o-mini',
    requests: 3,
    costCredits: 1.5,
    unpricedRequests: 0,
    inputTokens: 300,
    outputTokens: 120,
    gatewayCost: null,
    gatewayCostProfiles: [],
    unstatedRequests: 0,
    ...overrides,
  });

  it.each<[string, SpendByDayRow[], Parameters<typeof spendCsv>[1], Record<string, string>[]]>([
    [
      'per model, with the money in CNY beside the credits',
      [day({}), day({ day: '2026-11-21', group: 'claude-sonnet', costCredits: 0.25 })],
      'model',
      [
        { day: '2026-11-20', group_by: 'model', group: 'gpt-4o-mini', requests: '3', cost_credits: '1.5' },
        { day: '2026-11-21', group: 'claude-sonnet', cost_credits: '0.25' },
      ],
    ],
    ['ungrouped: group empty', [day({ group: null })], null, [{ group_by: 'none', group: '' }]],
    [
      'unpriced requests are counted',
      [day({ unpricedRequests: 2, costCredits: 0 })],
      'client',
      [{ unpriced_requests: '2', cost_credits: '0' }],
    ],
    [
      "the gateway's own statement in its unit beside the credits, with the answered requests it leaves out",
      [day({ gatewayCost: 0.1 + 0.2, gatewayCostProfiles: ['litellm'], unstatedRequests: 1 })],
      'model',
      [{ cost_credits: '1.5', gateway_cost_gateway_unit: '0.3', requests_without_gateway_cost: '1', gateway_cost_profiles: 'litellm' }],
    ],
    [
      "two profiles' gateways, two units: no sum, and the profiles named",
      [day({ gatewayCost: 0.5, gatewayCostProfiles: ['litellm', 'openrouter'] })],
      'model',
      [{ gateway_cost_gateway_unit: '', gateway_cost_profiles: 'litellm openrouter' }],
    ],
    [
      'a gateway that stated nothing: its sum empty, never 0, and every answered request counted without one',
      [day({ unstatedRequests: 3 })],
      'model',
      [{ gateway_cost_gateway_unit: '', requests_without_gateway_cost: '3' }],
    ],
  ])('%s', (_name, rows, groupBy, expected) => {
    const records = parsed(spendCsv(rows, groupBy));
    expect(records).toHaveLength(expected.length);
    for (const [index, fields] of expected.entries()) expect(records[index]).toMatchObject(fields);
    for (const record of records) expect(Number(record.cost_cny)).toBeCloseTo(Number(record.cost_credits) * CNY_PER_CREDIT, 6);
  });
});
