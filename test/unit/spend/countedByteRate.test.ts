import { describe, expect, it } from 'vitest';
import { CountedByteRate } from '../../../proxy/spend/countedByteRate.ts';
import { byteEstimateTokens, estimateChatInputTokens } from '../../../proxy/spend/estimate.ts';

/**
 * The input estimate a translated client is told without the tokenizer: its bytes at the rate the tokenizer
 * counted the same conversation's earlier turns, never under the tokenizer's own count (a client that
 * compacts a little early loses less than one that overflows its context).
 */
const PROSE =
  'The cache keeps each answer for as long as its headers allow, and a request that finds a fresh copy ' +
  'is answered without reaching the gateway. When the copy is stale, the proxy asks again with the ' +
  'validator it holds, and a not-modified reply renews the copy for another period. ';
const CODE = [
  'export async function readConfig(path: string): Promise<Config> {',
  "  const text = await readFile(path, 'utf8');",
  '  const parsed: unknown = JSON.parse(text);',
  "  if (!isRecord(parsed)) throw new Error(path + ': not an object');",
  "  return { port: Number(parsed['port'] ?? 8080), hosts: [...(parsed['hosts'] as string[])] };",
  '}',
  '',
].join('\n');
const PACKAGE_JSON = JSON.stringify(
  {
    name: '@acme/gateway-client',
    version: '3.14.0',
    scripts: { build: 'tsc -b', test: 'vitest run', lint: 'biome check .' },
    dependencies: { undici: '^7.2.0', zod: '^4.1.5', 'gpt-tokenizer': '^3.0.1' },
    devDependencies: { typescript: '^5.9.2', vitest: '^3.2.4', '@biomejs/biome': '^2.2.0' },
  },
  null,
  2,
);
const CJK = '这个函数读取配置文件，检查每个字段，并在端口缺失时使用默认值。';
// A screenshot a tool returned: the tokenizer counts an image as a flat estimate, whatever its bytes.
const SCREENSHOT = { type: 'image_url', image_url: { url: `data:image/png;base64,${'iVBORw0KGgoAAAANSUhEUgAA'.repeat(4000)}` } };

const TOOLS = [{ type: 'function', function: { name: 'read_file', description: 'Reads a file', parameters: { type: 'object' } } }];

/** A Claude Code conversation translated to chat: each turn a tool call and its result. */
function session(results: readonly unknown[]): object {
  const messages: object[] = [
    { role: 'system', content: PROSE.repeat(6) },
    { role: 'user', content: 'Find where the port comes from.' },
  ];
  results.forEach((content, turn) => {
    const id = `call_${turn}`;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: '{}' } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, content });
  });
  return { model: 'gpt-4o-mini', stream: true, tools: TOOLS, messages };
}

const bytesOf = (body: object): number => Buffer.byteLength(JSON.stringify(body));

/** Counted bodies, each of a session. */
type Counted = readonly (readonly [string | null, object])[];

/** The rate after the tokenizer counted these bodies, in order. */
function learnedFrom(counted: Counted): CountedByteRate {
  const rate = new CountedByteRate();
  for (const [sessionId, body] of counted) rate.record(sessionId, bytesOf(body), estimateChatInputTokens(body));
  return rate;
}

const codeTurns = [CODE.repeat(20), PROSE.repeat(10), CODE.repeat(6)];
// A conversation grown well past its counted turns, its later ones dense JSON.
const longCodeTurns = [...codeTurns, ...Array.from({ length: 40 }, (_, turn) => (turn % 2 === 0 ? CODE : PACKAGE_JSON).repeat(30))];

describe('CountedByteRate', () => {
  it.each<[string, Counted, object]>([
    [
      'the next turn of a code session',
      [
        ['s1', session(codeTurns.slice(0, 1))],
        ['s1', session(codeTurns.slice(0, 2))],
      ],
      session(codeTurns),
    ],
    ['a turn that adds denser JSON than the session held', [['s1', session(codeTurns)]], session([...codeTurns, PACKAGE_JSON.repeat(3)])],
    ['a turn that adds Chinese text', [['s1', session([PROSE.repeat(30)])]], session([PROSE.repeat(30), CJK.repeat(20)])],
    // Claude Code names its side requests (a title, a summary) with the conversation's session.
    [
      'the next turn after a side request of the session',
      [
        ['s1', session(codeTurns.slice(0, 2))],
        ['s1', session([PROSE.repeat(12)])],
      ],
      session(codeTurns),
    ],
    ['a conversation grown by a fifth, all of it JSON', [['s1', session(codeTurns)]], session([...codeTurns, PACKAGE_JSON.repeat(7)])],
    [
      'its own rate, though another session was counted after it',
      [
        ['s1', session([PACKAGE_JSON.repeat(8)])],
        ['s2', session([PROSE.repeat(40)])],
      ],
      session([PACKAGE_JSON.repeat(10)]),
    ],
  ])('%s: at least the tokenizer count, under the byte rule', (_case, counted, next) => {
    const told = learnedFrom(counted).inputTokens('s1', bytesOf(next));
    expect(told).toBeGreaterThanOrEqual(estimateChatInputTokens(next));
    expect(told).toBeLessThan(byteEstimateTokens(bytesOf(next)));
  });

  it.each<[string, Counted, string | null]>([
    ['nothing was counted', [], 's1'],
    // Most of it never counted: its later turns may be denser than its counted ones (here half is JSON).
    ['the conversation grew far past its counted turns', [['s1', session(codeTurns)]], 's1'],
    // Its rate says nothing of this one's: a prose conversation runs 4.8 bytes a token, a JSON one 3.1.
    ['only another session was counted', [['s2', session([PROSE.repeat(40)])]], 's1'],
    ['the agent names no session', [[null, session([PROSE.repeat(40)])]], null],
    // Its bytes are mostly the image's: its rate says nothing of text.
    ['only a body with a screenshot was counted', [['s1', session([[{ type: 'text', text: CODE }, SCREENSHOT]])]], 's1'],
    // A tiny body's rate is its framing's (model, roles), not its text's.
    ['only a tiny body was counted', [['s1', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }]], 's1'],
  ])('%s: the byte rule', (_case, counted, sessionId) => {
    const next = session(longCodeTurns);
    const told = learnedFrom(counted).inputTokens(sessionId, bytesOf(next));
    expect(told).toBe(byteEstimateTokens(bytesOf(next)));
  });

  it("counts a tiny body by the byte rule: its framing's tokens make it denser than any text", () => {
    const tiny = {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
    };
    const told = learnedFrom([['s1', session([PROSE.repeat(40)])]]).inputTokens('s1', bytesOf(tiny));
    expect(told).toBe(byteEstimateTokens(bytesOf(tiny)));
    expect(told).toBeGreaterThanOrEqual(estimateChatInputTokens(tiny));
  });

  it("keeps a session's densest turn: a sparser later one does not raise its rate", () => {
    const rate = learnedFrom([['s1', session([PACKAGE_JSON.repeat(8)])]]);
    const told = rate.inputTokens('s1', 100_000);
    rate.record('s1', bytesOf(session([PROSE.repeat(40)])), estimateChatInputTokens(session([PROSE.repeat(40)])));
    expect(rate.inputTokens('s1', 100_000)).toBe(told);
  });

  it('forgets the sessions counted longest ago', () => {
    const rate = learnedFrom([['first', session([PROSE.repeat(40)])]]);
    for (let count = 0; count < 300; count++) rate.record(`later-${count}`, bytesOf(session([PROSE.repeat(40)])), 3000);
    expect(rate.inputTokens('first', 100_000)).toBe(byteEstimateTokens(100_000));
  });
});
