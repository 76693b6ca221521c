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

// Text far denser than prose in o200k: a blob, hashes, ids, numbers (review of the byte rate).
const DENSE_ADDITIONS: readonly (readonly [string, string])[] = [
  ['a base64 blob', Buffer.from(Array.from({ length: 45_000 }, (_, i) => (i * 7919) % 251)).toString('base64')],
  ['hex digests', Array.from({ length: 600 }, (_, i) => (BigInt(i + 1) * 0x9e3779b97f4a7c15n).toString(16).padStart(16, '0')).join('\n')],
  [
    'UUIDs',
    Array.from({ length: 400 }, (_, i) => {
      const hex = (BigInt(i + 7) * 0x9e3779b97f4a7c15n * 0xbf58476d1ce4e5b9n).toString(16).padStart(32, '0').slice(-32);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }).join(', '),
  ],
  ['a JSON array of numbers', JSON.stringify(Array.from({ length: 3000 }, (_, i) => (i * 7907) % 100_003))],
];

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
    // Only the part counted before goes at its rate; what the turns added since, JSON among it, at bytes / 3.
    ['a conversation grown far past its counted turns', [['s1', session(codeTurns)]], session(longCodeTurns)],
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

  // What a turn adds may be far denser than anything counted, and than bytes / 3 itself (a base64 blob
  // runs under 2 bytes a token): the rate is applied only to what the tokenizer counted, the added part
  // is told at bytes / 3 as before (the review of the rate found 0.37x when the rate was applied to it).
  it.each<[string, object, object]>([
    ...DENSE_ADDITIONS.map(([name, added]): [string, object, object] => [
      `a prose conversation that adds ${name}`,
      session([PROSE.repeat(200)]),
      session([PROSE.repeat(200), added]),
    ]),
    // Compacted (or a subagent's, under its parent's session id): counted small after a large one, then grown.
    [
      'a compacted conversation that grows past its last count',
      session([PROSE.repeat(20)]),
      session([PROSE.repeat(20), DENSE_ADDITIONS[0]![1]]),
    ],
  ])('%s: its counted part at least as the tokenizer counted it, what it added at bytes / 3', (_case, last, next) => {
    const rate = learnedFrom([
      ['s1', session([PROSE.repeat(400)])],
      ['s1', last],
    ]);
    const told = rate.inputTokens('s1', bytesOf(next));
    expect(told).toBeGreaterThanOrEqual(estimateChatInputTokens(last) + byteEstimateTokens(bytesOf(next) - bytesOf(last)));
    expect(told).toBeLessThan(byteEstimateTokens(bytesOf(next)));
  });

  it("counts a body well under the session's last count by the byte rule: another conversation, never counted", () => {
    // The same session compacted, or a subagent's conversation under its parent's session id.
    const rate = learnedFrom([['s1', session(longCodeTurns)]]);
    const other = session([PACKAGE_JSON.repeat(30)]);
    expect(rate.inputTokens('s1', bytesOf(other))).toBe(byteEstimateTokens(bytesOf(other)));
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
    const json = session([PACKAGE_JSON.repeat(8)]);
    const prose = session([PROSE.repeat(40)]);
    const rate = learnedFrom([
      ['s1', json],
      ['s1', prose],
    ]);
    const jsonBytesPerToken = bytesOf(json) / estimateChatInputTokens(json);
    expect(bytesOf(prose) / estimateChatInputTokens(prose)).toBeGreaterThan(jsonBytesPerToken);
    expect(rate.inputTokens('s1', bytesOf(prose))).toBe(Math.ceil(bytesOf(prose) / (jsonBytesPerToken * 0.9)));
  });

  it('forgets the sessions counted longest ago', () => {
    const rate = learnedFrom([['first', session([PROSE.repeat(40)])]]);
    for (let count = 0; count < 300; count++) rate.record(`later-${count}`, bytesOf(session([PROSE.repeat(40)])), 3000);
    expect(rate.inputTokens('first', 100_000)).toBe(byteEstimateTokens(100_000));
  });
});
