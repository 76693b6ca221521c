import { describe, expect, it } from 'vitest';
import { KEPT_MEMBER_BYTES, LargeAnswerMembers, TopLevelMembers, writtenInMembers } from '../../../proxy/forward/passedAnswerMembers.ts';

function chunksOf(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
}

function scan(text: string, chunkBytes: number) {
  const members = new TopLevelMembers();
  for (const chunk of chunksOf(text, chunkBytes)) members.feed(chunk);
  return members.members();
}

/** Strings holding what looks like structure, escapes, a key named like one kept, nesting. */
const TRICKY = {
  object: 'list',
  data: [{ embedding: [0.5, -0.25], note: 'a "quoted" } ] , : text \\', nested: { usage: 'not this one' } }],
  model: 'mod\u00e9l-\\"x',
  usage: { prompt_tokens: 12, total_tokens: 12 },
};

describe('TopLevelMembers', () => {
  it.each([1, 2, 3, 7, 64, 4096])('keeps the top-level members whatever the chunks (%i bytes)', (size) => {
    const { kept, droppedValueBytes } = scan(` \n${JSON.stringify(TRICKY, null, 2)}\n`, size);
    expect(kept).toEqual(TRICKY);
    expect(droppedValueBytes.size).toBe(0);
  });

  it('lets a member past the limit go, keeping its size, and keeps the others wherever they stand', () => {
    const vectors = Array.from({ length: 20_000 }, (_, index) => [index / 7, -index / 3]);
    const dataText = JSON.stringify(vectors);
    expect(dataText.length).toBeGreaterThan(KEPT_MEMBER_BYTES);
    const usage = { prompt_tokens: 5, total_tokens: 5 };
    const text = `{"usage":${JSON.stringify(usage)},"data": ${dataText} ,"model":"m"}`;
    const { kept, droppedValueBytes } = scan(text, 64 * 1024);
    expect(kept).toEqual({ usage, model: 'm' });
    expect(droppedValueBytes.get('data')).toBe(Buffer.byteLength(` ${dataText} `));
  });

  it.each([
    ['an array', '[{"usage":{"prompt_tokens":1}}]'],
    ['an object cut short', '{"usage":{"prompt_tokens":1},"data":[1,2'],
    ['a string', '"usage"'],
    ['JSON Lines', '{"usage":{"prompt_tokens":1}}\n{"usage":{"prompt_tokens":2}}\n'],
  ])('keeps nothing of %s', (_what, text) => {
    expect(scan(text, 5).kept).toBeNull();
  });
});

describe('TopLevelMembers counting items', () => {
  const IMAGES = { member: 'data', keys: ['url', 'b64_json'] };
  const big = 'A'.repeat(KEPT_MEMBER_BYTES);

  function counted(answer: object, chunkBytes: number): number | null {
    const members = new TopLevelMembers(IMAGES);
    for (const chunk of chunksOf(JSON.stringify(answer), chunkBytes)) members.feed(chunk);
    return members.members().countedItems;
  }

  it.each([1, 5, 64 * 1024])('counts the items holding a key looked for as a string (%i-byte chunks)', (size) => {
    const data = [
      { url: null, b64_json: big },
      { revised_prompt: 'a "url": "x"', url: 'https://x' },
      { url: null },
      { nested: { url: 'https://deeper' }, b64_json: 7 },
      { b64_json: 'short' },
    ];
    expect(counted({ created: 1, data, usage: { input_tokens: 3 } }, size)).toBe(3);
  });

  it('counts nothing of a member kept (its items are read whole), nor of one that is no array', () => {
    expect(counted({ data: [{ url: 'https://x' }, { url: 'https://y' }] }, 7)).toBeNull();
    expect(counted({ data: { url: 'https://x', b64_json: big } }, 1024)).toBeNull();
  });

  it('counts no embeddings as images', () => {
    const embedding = Array.from({ length: 64 }, (_, index) => index / 7);
    const data = Array.from({ length: 300 }, (_, index) => ({ object: 'embedding', index, embedding }));
    expect(JSON.stringify(data).length).toBeGreaterThan(KEPT_MEMBER_BYTES);
    expect(counted({ object: 'list', data, model: 'm' }, 4096)).toBe(0);
  });
});

describe("TopLevelMembers, at the answer's end", () => {
  it('tells an answer that ended inside its object (cut short) from a whole one', () => {
    const text = JSON.stringify(TRICKY);
    for (let end = 1; end < text.length; end += 1) expect(scan(text.slice(0, end), 7).cutShort, text.slice(0, end)).toBe(true);
    expect(scan(` ${text}\n`, 7).cutShort).toBe(false);
  });

  it('says nothing of what it does not read: an array, no JSON, nothing', () => {
    for (const text of ['[1, 2', 'maintenance', '']) expect(scan(text, 7).cutShort).toBe(false);
  });
});

describe('LargeAnswerMembers', () => {
  it('reads nothing while the log keeps the whole answer, and all of it once the log is cut', () => {
    const text = JSON.stringify(TRICKY);
    const whole = new LargeAnswerMembers();
    for (const chunk of chunksOf(text, 9)) whole.passed(chunk, false);
    expect(whole.members()).toBeNull();

    const cut = new LargeAnswerMembers();
    const chunks = chunksOf(text, 9);
    for (const [index, chunk] of chunks.entries()) cut.passed(chunk, index >= chunks.length / 2);
    expect(cut.members()?.kept).toEqual(TRICKY);
  });
});

describe('writtenInMembers', () => {
  it("counts a legacy completion's text too large to keep by its bytes, and nothing for other large members", () => {
    const written = writtenInMembers({
      kept: { object: 'text_completion' },
      droppedValueBytes: new Map([
        ['choices', 300_000],
        ['data', 900_000],
      ]),
      countedItems: null,
      cutShort: false,
    });
    expect(written.written()).toMatchObject({ textBytes: 300_000, answerText: '', otherText: '' });
    expect(written.empty).toBe(false);
  });
});
