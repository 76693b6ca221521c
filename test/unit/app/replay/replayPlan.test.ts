import { describe, expect, it } from 'vitest';
import type { RequestBodiesRecord, RequestLogRow } from '../../../../proxy/contracts/log.ts';
import type { ReplayRequest } from '../../../../proxy/contracts/replay.ts';
import { isReplayRefusal, planReplay, REPLAY_USER_AGENT } from '../../../../proxy/app/replay/replayPlan.ts';
import { logDetail } from '../export/exportRows.ts';
import { PLAIN_HINT } from '../../../../proxy/contracts/cli.ts';

const LOGGED_BODY = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}';

interface Case {
  name: string;
  row?: Partial<RequestLogRow>;
  bodies?: Partial<RequestBodiesRecord> | null;
  request?: ReplayRequest;
  profileIds?: string[];
  activeProfileId?: string | null;
  /** A refusal code, or what the plan sends. */
  expected: string | { body: string | null; profileId: string; edited?: boolean; headers?: Record<string, string>; exactHeaders?: boolean };
}

const cases: Case[] = [
  { name: 'the logged body, unchanged, through the original profile', expected: { body: LOGGED_BODY, profileId: 'main', edited: false } },
  { name: 'an edit replaces the body', request: { body: '{"a":1}' }, expected: { body: '{"a":1}', profileId: 'main', edited: true } },
  { name: 'another profile when asked', request: { profileId: 'spare' }, expected: { body: LOGGED_BODY, profileId: 'spare' } },
  {
    name: 'the active profile when the original had none',
    row: { profileId: null },
    activeProfileId: 'spare',
    expected: { body: LOGGED_BODY, profileId: 'spare' },
  },
  { name: 'a profile deleted since', row: { profileId: 'gone' }, expected: 'no_profile' },
  { name: 'a body cut at the capture limit', bodies: { requestTruncated: true }, expected: 'body_truncated' },
  {
    name: 'a cut body with an edit supplying it whole',
    bodies: { requestTruncated: true },
    request: { body: '{}' },
    expected: { body: '{}', profileId: 'main' },
  },
  { name: 'no body logged for a POST', bodies: null, expected: 'body_not_stored' },
  {
    // The window and the CLI send the logged text back as an edit when the user changed nothing.
    name: 'a cut body sent back unchanged as an edit',
    bodies: { requestTruncated: true, requestBody: LOGGED_BODY.slice(0, 30), requestHeaders: { 'content-type': 'text/plain' } },
    request: { body: LOGGED_BODY.slice(0, 30) },
    expected: 'body_truncated',
  },
  {
    name: 'an upload the log kept only as its description',
    row: { clientPath: '/v1/audio/transcriptions', upstreamPath: '/v1/audio/transcriptions' },
    bodies: {
      requestBody: '[binary body not logged: 52428800 bytes, multipart/form-data; boundary=b]',
      requestHeaders: { 'content-type': 'multipart/form-data; boundary=b' },
    },
    expected: 'body_not_stored',
  },
  {
    name: 'the description of an upload sent back unchanged as an edit',
    bodies: { requestBody: '[binary body not logged: 3 bytes, application/octet-stream]' },
    request: { body: '[binary body not logged: 3 bytes, application/octet-stream]' },
    expected: 'body_not_stored',
  },
  {
    name: 'no body logged, but the edit gives one',
    bodies: null,
    request: { body: '{"b":2}' },
    expected: { body: '{"b":2}', profileId: 'main' },
  },
  {
    name: 'no body logged for a GET',
    row: { method: 'GET', clientPath: '/v1/models' },
    bodies: null,
    expected: { body: null, profileId: 'main' },
  },
  { name: 'a masked value in the logged body', bodies: { requestBody: '{"content":"key [redacted]"}' }, expected: 'body_redacted' },
  { name: 'a masked value left in an edit', request: { body: '{"content":"[redacted]"}' }, expected: 'body_redacted' },
  { name: 'an edit that is not JSON', request: { body: '{"model":' }, expected: 'invalid_json' },
  {
    name: 'a text body edit is not checked as JSON',
    bodies: { requestHeaders: { 'content-type': 'text/plain' } },
    request: { body: 'plain' },
    expected: { body: 'plain', profileId: 'main' },
  },
  {
    name: 'an image creation without a key',
    row: { upstreamPath: '/v1/images/generations', clientPath: '/v1/images/generations' },
    expected: 'side_effect_without_key',
  },
  {
    name: 'an image creation under its own key',
    row: { upstreamPath: '/v1/images/generations', clientPath: '/v1/images/generations' },
    request: { idempotencyKey: ' k-1 ' },
    expected: { body: LOGGED_BODY, profileId: 'main', headers: { 'idempotency-key': 'k-1' } },
  },
  {
    // The log masks a path like any text: with an id that looks random (a thread, a file) the whole run goes.
    name: 'a path the log masked',
    row: { method: 'GET', clientPath: '[redacted]?limit=10', upstreamPath: '[redacted]?limit=10' },
    bodies: null,
    expected: 'path_redacted',
  },
  {
    name: 'a path the log masked in part',
    row: { clientPath: '/v1/chat/completions?token=[redacted]' },
    expected: 'path_redacted',
  },
  { name: 'a summary row of lost requests', row: { clientPath: '(requests not written to the log)' }, expected: 'not_a_request' },
  {
    name: 'API headers kept; session ids, SDK retry signals and user agent left out',
    bodies: {
      requestHeaders: {
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        'x-claude-code-session-id': 's1',
        'x-stainless-retry-count': '0',
        'user-agent': 'ai-sdk/1',
        'content-length': '70',
      },
    },
    expected: {
      body: LOGGED_BODY,
      profileId: 'main',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'user-agent': REPLAY_USER_AGENT },
      exactHeaders: true,
    },
  },
];

describe('planReplay', () => {
  it.each(cases)('$name', ({ row, bodies, request = {}, profileIds = ['main', 'spare'], activeProfileId = 'main', expected }) => {
    const plan = planReplay({
      commandHint: PLAIN_HINT,
      original: logDetail(row, bodies === undefined ? {} : bodies),
      request,
      profileIds,
      activeProfileId,
    });
    if (typeof expected === 'string') {
      expect(isReplayRefusal(plan) ? plan.code : 'sent').toBe(expected);
      return;
    }
    if (isReplayRefusal(plan)) throw new Error(`refused: ${plan.message}`);
    expect(plan.body).toBe(expected.body);
    expect(plan.profileId).toBe(expected.profileId);
    expect(plan.clientName).toBe('claude-code');
    if (expected.edited !== undefined) expect(plan.edited).toBe(expected.edited);
    if (expected.headers && expected.exactHeaders) expect(plan.headers).toEqual(expected.headers);
    else if (expected.headers) expect(plan.headers).toMatchObject(expected.headers);
  });

  it("a cut body names the setting that keeps more, not a fixed size (the limit is the user's to set)", () => {
    const plan = planReplay({
      commandHint: PLAIN_HINT,
      original: logDetail({}, { requestTruncated: true }),
      request: {},
      profileIds: ['main'],
      activeProfileId: 'main',
    });
    if (!isReplayRefusal(plan)) throw new Error('a cut body was not refused');
    expect(plan.message).toContain('`npx airlock memory --body-capture-kib <KiB>`');
    expect(plan.message).toContain('Body kept per request');
    expect(plan.message).not.toMatch(/\d+ MiB/);
  });

  it('every refusal says the cause and the fix', () => {
    for (const refused of cases.filter((entry) => typeof entry.expected === 'string')) {
      const plan = planReplay({
        commandHint: PLAIN_HINT,
        original: logDetail(refused.row, refused.bodies === undefined ? {} : refused.bodies),
        request: refused.request ?? {},
        profileIds: ['main', 'spare'],
        activeProfileId: 'main',
      });
      if (!isReplayRefusal(plan)) throw new Error(`${refused.name} was not refused`);
      expect(plan.message, refused.name).toMatch(/\.\s.+/);
    }
  });
});

describe('the profile a replay names', () => {
  const plan = (request: ReplayRequest, rowProfileId: string) =>
    planReplay({
      commandHint: PLAIN_HINT,
      original: logDetail({ profileId: rowProfileId }, {}),
      request,
      profileIds: ['main', 'spare'],
      activeProfileId: 'main',
    });

  it('one the user typed that never existed is not said to be gone', () => {
    const refused = plan({ profileId: 'nope' }, 'main');
    expect(isReplayRefusal(refused) && refused.message).toMatch(
      /^No profile with id "nope"\. Choose a profile for the replay \(profiles: main, spare\)/,
    );
  });

  it("the original's, removed since, is said to be gone", () => {
    const refused = plan({}, 'gone');
    expect(isReplayRefusal(refused) && refused.message).toMatch(
      /^Profile "gone", which the original request used, does not exist any more\./,
    );
  });
});
