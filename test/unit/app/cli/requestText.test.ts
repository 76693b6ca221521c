import { describe, expect, it } from 'vitest';
import type { RequestLogRow } from '../../../../proxy/contracts/log.ts';
import { requestText } from '../../../../proxy/app/cli/requestText.ts';
import { logRow } from '../export/exportRows.ts';
import { suggestedCommand } from '../../../../proxy/contracts/cli.ts';

/** Hints as a run on the default data directory writes them. */
const hint = (args: string): string => suggestedCommand(args, null);

describe('requestText: one request for `airlock request`', () => {
  it('an ordinary request: heading, status, models, profile, client, duration, cost, retries, and nothing about chains', () => {
    expect(requestText(logRow(), [], hint)).toEqual([
      'alk_1700000000000_a  2026-11-20 09:30:00 UTC  POST /v1/chat/completions',
      'Status:     200',
      'Model:      gpt-4o-mini → gpt-4o-mini-2024-07-18',
      'Profile:    main',
      'Client:     claude-code',
      'Duration:   450 ms (first byte 120 ms)',
      'Cost:       0.0042 credits',
      'Retries:    0',
    ]);
  });

  it("the gateway's stated charge, beside Airlock's cost", () => {
    expect(requestText(logRow({ gatewayCost: 0.000348 }), [], hint).slice(6, 9)).toEqual([
      'Cost:       0.0042 credits',
      'Charged:    0.000348 as the gateway stated it, in its own unit (budgets count the cost)',
      'Retries:    0',
    ]);
  });

  it.each<[string, Partial<RequestLogRow>, string[], string[]]>([
    [
      'a request that fell back: each step on its own numbered line',
      {
        fallbackChain: [
          { profileId: 'main', model: 'gpt-4o-mini', status: 503, errorClass: 'upstream_error' },
          { profileId: 'backup', model: null, status: null, errorClass: 'budget_exceeded', note: 'its cap is reached' },
          { profileId: 'main', model: 'deepseek-chat', status: 200, errorClass: null },
        ],
      },
      [],
      ['Fallback:', '  1. main/gpt-4o-mini 503 upstream_error', '  2. backup skipped (its cap is reached)', '  3. main/deepseek-chat 200'],
    ],
    [
      "a pooled profile's keys, by label and id",
      {
        gatewayKeys: [
          { keyId: 'main', label: 'key 1' },
          { keyId: 'b7', label: 'spare' },
        ],
      },
      [],
      ['Keys:       key 1 (main) > spare (b7)'],
    ],
    [
      'a replay links to its original, and an original to its replays',
      { replayOf: 'alk_orig' },
      ['alk_r1', 'alk_r2'],
      ['Replay of:  alk_orig (npx airlock request alk_orig)', 'Replays:    alk_r1, alk_r2'],
    ],
    ["an agent's turn names its session", { agentSessionId: 's-1' }, [], ['Session:    s-1 (npx airlock sessions s-1)']],
    [
      'a failure: status, class and message; unpriced, estimated figures said so',
      { status: 429, errorClass: 'rate_limited', errorMessage: 'slow down', costCredits: null },
      [],
      ['Status:     429 rate_limited: slow down', 'Cost:       unpriced'],
    ],
    ['estimated tokens are marked', { usageSource: 'estimated' }, [], ['Cost:       0.0042 credits (tokens estimated)']],
    [
      "the log's notes, such as a cost the gateway may bill with no usage stated",
      { usageSource: 'estimated', notes: ['May be billed: the gateway had the prompt in an attempt that stated no usage.'] },
      [],
      [
        'Cost:       0.0042 credits (tokens estimated)',
        'Note:       May be billed: the gateway had the prompt in an attempt that stated no usage.',
      ],
    ],
    [
      'a request still running',
      { state: 'in_flight', status: null, durationMs: null, ttfbMs: null },
      [],
      ['Status:     still running', 'Duration:   —'],
    ],
    [
      'the same model asked, sent and answered is named once; a rewrite shows each',
      { requestedModel: 'fast', upstreamModel: 'qwen-plus', responseModel: 'qwen-plus' },
      [],
      ['Model:      fast → qwen-plus'],
    ],
  ])('%s', (_name, overrides, replayIds, expectedLines) => {
    const lines = requestText(logRow(overrides), replayIds, hint);
    for (const line of expectedLines) expect(lines).toContain(line);
    // The lines stay in order: the chain follows the figures.
    const positions = expectedLines.map((line) => lines.indexOf(line));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });
});
