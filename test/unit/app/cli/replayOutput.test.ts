import { describe, expect, it } from 'vitest';
import { formatReplay } from '../../../../proxy/app/cli/commands/replay.ts';
import type { ReplayResponse, ReplaySide } from '../../../../proxy/contracts/replay.ts';

const side = (overrides: Partial<ReplaySide>): ReplaySide => ({
  id: 'alk_a',
  status: 200,
  errorClass: null,
  errorMessage: null,
  model: 'gpt-4o-mini',
  inputTokens: 10,
  outputTokens: 4,
  usageEstimated: false,
  costCredits: 0.001,
  durationMs: 120.4,
  answerText: 'Mars',
  ...overrides,
});

describe('formatReplay', () => {
  it('lines the figures up with their change, then prints both answers', () => {
    const answer: ReplayResponse = {
      replayOf: 'alk_a',
      replayId: 'alk_b',
      profileId: 'main',
      edited: true,
      original: side({}),
      replay: side({
        id: 'alk_b',
        status: 402,
        errorClass: 'budget_exceeded',
        errorMessage: 'Daily cap reached. Raise it.',
        inputTokens: null,
        outputTokens: null,
        costCredits: null,
        durationMs: 3,
        answerText: null,
      }),
      difference: {
        statusChanged: true,
        inputTokens: null,
        outputTokens: null,
        costCredits: null,
        durationMs: -117.4,
        answerChanged: true,
        answerDiff: null,
      },
    };
    expect(formatReplay(answer)).toEqual([
      'Replayed alk_a as alk_b through profile "main".',
      '',
      '               original     replay               change',
      'request        alk_a        alk_b                body edited',
      'status         200          402 budget_exceeded  changed',
      'model          gpt-4o-mini  gpt-4o-mini',
      'input tokens   10           -',
      'output tokens  4            -',
      'cost           0.001        -',
      'duration       120 ms       3 ms                 -117 ms',
      '',
      'Answer (original):',
      'Mars',
      '',
      'Answer (replay):',
      'Daily cap reached. Raise it.',
    ]);
  });
});
