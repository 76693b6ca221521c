import { describe, expect, it } from 'vitest';
import { costOf, findPrice, inputCostOf, priceOfRequest, unitsCostOf } from '../../../proxy/spend/cost.ts';
import { CreditSum } from '../../../proxy/spend/creditSum.ts';
import type { ModelPrice } from '../../../proxy/contracts/profile.ts';
import type { TokenUsage } from '../../../proxy/contracts/usage.ts';

const chat: ModelPrice = { model: 'gpt-x', inputPer1M: 2, outputPer1M: 8 };
const cached: ModelPrice = { model: 'gpt-c', inputPer1M: 2, outputPer1M: 8, cachedInputPer1M: 0.5 };
const image: ModelPrice = { model: 'img-1', perCall: 0.3 };
const usage = (inputTokens: number, outputTokens: number, cachedInputTokens?: number): TokenUsage =>
  cachedInputTokens === undefined ? { inputTokens, outputTokens } : { inputTokens, outputTokens, cachedInputTokens };

describe('costOf', () => {
  it.each([
    { name: 'input and output per 1M', u: usage(1_000_000, 1_000_000), price: chat, multiplier: 1, calls: 1, cost: 10 },
    { name: 'small request', u: usage(1234, 567), price: chat, multiplier: 1, calls: 1, cost: 0.007004 },
    { name: 'multiplier scales everything', u: usage(1_000_000, 0), price: chat, multiplier: 1.5, calls: 1, cost: 3 },
    { name: 'cached tokens at the cached price', u: usage(1_000_000, 0, 400_000), price: cached, multiplier: 1, calls: 1, cost: 1.4 },
    {
      name: 'cached tokens at input price without a cached price',
      u: usage(1_000_000, 0, 400_000),
      price: chat,
      multiplier: 1,
      calls: 1,
      cost: 2,
    },
    {
      // Chat's completion_tokens and Responses' output_tokens already hold the reasoning: it is never added again.
      name: 'reasoning is part of the output, priced once',
      u: { inputTokens: 0, outputTokens: 1_000_000, reasoningTokens: 900_000 },
      price: chat,
      multiplier: 1,
      calls: 1,
      cost: 8,
    },
    { name: 'cached count above input is capped', u: usage(100, 0, 500), price: cached, multiplier: 1, calls: 1, cost: 0.00005 },
    { name: 'per call', u: null, price: image, multiplier: 1, calls: 1, cost: 0.3 },
    { name: 'per call times calls and multiplier', u: null, price: image, multiplier: 2, calls: 4, cost: 2.4 },
    { name: 'per call plus tokens', u: usage(1_000_000, 0), price: { ...image, inputPer1M: 1 }, multiplier: 1, calls: 1, cost: 1.3 },
    { name: 'zero usage of a priced model is 0', u: usage(0, 0), price: chat, multiplier: 1, calls: 1, cost: 0 },
    {
      name: 'a cost under a millionth of a credit is kept',
      u: usage(1, 1),
      price: { model: 'm', inputPer1M: 0.1, outputPer1M: 0.2 },
      multiplier: 1,
      calls: 1,
      cost: 3e-7,
    },
    {
      name: 'one token at a tenth of a credit per 1M',
      u: usage(1, 0),
      price: { model: 'm', inputPer1M: 0.1 },
      multiplier: 1,
      calls: 1,
      cost: 1e-7,
    },
    { name: 'no rounding to a fixed step', u: usage(7, 0), price: { model: 'm', inputPer1M: 0.2 }, multiplier: 1, calls: 1, cost: 1.4e-6 },
  ])('$name', ({ u, price, multiplier, calls, cost }) => {
    const result = costOf(u, price, multiplier, calls);
    expect(result.priced).toBe(true);
    // Exact to the last few bits of a double: never rounded to a step.
    expect(result.costCredits).toBeCloseTo(cost, 15);
    expect(Math.abs((result.costCredits ?? 0) - cost)).toBeLessThanOrEqual(Math.abs(cost) * 1e-12);
  });

  it('a million small requests add up to the credit', () => {
    // 1.4e-6 credits each: rounded to 1e-6 they were counted 29% short (1 credit instead of 1.4).
    const price: ModelPrice = { model: 'embed', inputPer1M: 0.2 };
    const sum = new CreditSum();
    for (let request = 0; request < 1_000_000; request += 1) sum.add(costOf(usage(7, 0), price, 1).costCredits ?? 0);
    expect(sum.credits).toBeCloseTo(1.4, 6);
  });

  it.each([
    { name: 'no price', price: undefined },
    { name: 'price without any figure', price: { model: 'm' } },
    { name: 'cached price alone', price: { model: 'm', cachedInputPer1M: 1 } },
  ])('unpriced, never 0: $name', ({ price }) => {
    expect(costOf(usage(1000, 1000), price, 1)).toEqual({ costCredits: null, priced: false });
  });

  it('a token-priced model without usage has an unknown cost, not 0', () => {
    expect(costOf(null, chat, 1)).toEqual({ costCredits: null, priced: true });
  });
});

/**
 * Anthropic bills a 5-minute cache write at 1.25x the input price, a 1-hour write at 2x and a cache
 * read at 0.1x (docs.anthropic.com "Prompt caching", pricing table; docs.electronhub.ai/guides/prompt-caching).
 * Writes are part of the input tokens, as reads are (protocols/anthropic/usage.ts).
 */
describe('costOf: prompt-cache writes', () => {
  const sonnet: ModelPrice = { model: 'claude-sonnet', inputPer1M: 3, outputPer1M: 15, cachedInputPer1M: 0.3 };
  const writes = (inputTokens: number, cacheWrite: number, cacheWrite1h?: number, cachedInputTokens?: number): TokenUsage => ({
    inputTokens,
    outputTokens: 0,
    cacheWriteInputTokens: cacheWrite,
    ...(cacheWrite1h === undefined ? {} : { cacheWrite1hInputTokens: cacheWrite1h }),
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
  });
  it.each([
    { name: '5-minute writes at 1.25x the input price', u: writes(1_000_000, 1_000_000), price: sonnet, cost: 3.75 },
    { name: '1-hour writes at 2x the input price', u: writes(1_000_000, 1_000_000, 1_000_000), price: sonnet, cost: 6 },
    {
      name: 'writes of both lifetimes, reads and plain input in one request',
      // 100k plain at 3, 200k read at 0.3, 300k 5-minute writes at 3.75, 400k 1-hour writes at 6.
      u: writes(1_000_000, 700_000, 400_000, 200_000),
      price: sonnet,
      cost: 0.3 + 0.06 + 1.125 + 2.4,
    },
    {
      name: "the profile's own write prices win over the multiples",
      u: writes(1_000_000, 1_000_000, 250_000),
      price: { ...sonnet, cacheWritePer1M: 3, cacheWrite1hPer1M: 3 },
      cost: 3,
    },
    { name: 'the multiplier scales writes too', u: writes(1_000_000, 1_000_000), price: sonnet, multiplier: 2, cost: 7.5 },
    {
      name: 'writes above the input left after reads are capped',
      u: writes(100, 500, 0, 60),
      price: sonnet,
      cost: (60 * 0.3 + 40 * 3.75) / 1e6,
    },
    { name: '1-hour writes above the writes are capped', u: writes(1_000_000, 500_000, 900_000), price: sonnet, cost: 1.5 + 3 },
    { name: 'no writes reported: input as before', u: writes(1_000_000, 0), price: sonnet, cost: 3 },
  ])('$name', ({ u, price, multiplier, cost }) => {
    const result = costOf(u, price, multiplier ?? 1);
    expect(Math.abs((result.costCredits ?? Number.NaN) - cost)).toBeLessThanOrEqual(cost * 1e-12);
  });
});

describe('inputCostOf', () => {
  it.each([
    { tokens: 500_000, price: chat, multiplier: 1, cost: 1 },
    { tokens: 500_000, price: chat, multiplier: 2, cost: 2 },
    { tokens: 10, price: image, multiplier: 1, cost: null },
    { tokens: 10, price: undefined, multiplier: 1, cost: null },
  ])('$tokens tokens at $price.model x$multiplier = $cost', ({ tokens, price, multiplier, cost }) => {
    expect(inputCostOf(tokens, price, multiplier)).toBe(cost);
  });

  // A request whose cache_control markers ask for writes may have all its input written: held at the dearer price.
  const written: ModelPrice = { model: 'claude-x', inputPer1M: 4, cacheWritePer1M: 6, cacheWrite1hPer1M: 10 };
  const cheapWrites: ModelPrice = { model: 'relay-x', inputPer1M: 4, cacheWritePer1M: 2 };
  const sonnet: ModelPrice = { model: 'claude-sonnet', inputPer1M: 3 };
  it.each([
    { name: 'no markers: the input price', price: sonnet, writes: 'none', cost: 3 },
    { name: '5-minute markers, default write price: 1.25x', price: sonnet, writes: '5m', cost: 3.75 },
    { name: '1-hour markers, default write price: 2x', price: sonnet, writes: '1h', cost: 6 },
    { name: '5-minute markers, the stated write price', price: written, writes: '5m', cost: 6 },
    { name: '1-hour markers, the stated 1-hour price', price: written, writes: '1h', cost: 10 },
    { name: 'a write price below the input price: the input price still bounds it', price: cheapWrites, writes: '5m', cost: 4 },
    { name: '1-hour markers with only a 5-minute price stated: the default 2x', price: cheapWrites, writes: '1h', cost: 8 },
  ] as const)('1M tokens, $name', ({ price, writes, cost }) => {
    expect(inputCostOf(1_000_000, price, 1, writes)).toBeCloseTo(cost, 12);
  });
});

describe('findPrice', () => {
  const prices: ModelPrice[] = [
    { model: 'GPT-X', inputPer1M: 1 },
    { model: 'gpt-x', inputPer1M: 2 },
    { model: 'Claude-Y', inputPer1M: 3 },
  ];
  it.each([
    { model: 'gpt-x', expected: 2 },
    { model: 'GPT-X', expected: 1 },
    { model: 'claude-y', expected: 3 },
    { model: 'unknown', expected: undefined },
    { model: null, expected: undefined },
  ])('$model -> $expected', ({ model, expected }) => {
    expect(findPrice(prices, model)?.inputPer1M).toBe(expected);
  });
});

/**
 * whisper-1 is billed by the minute of input audio, to the second (OpenAI's and OpenRouter's price
 * lists: $0.006 a minute), and its answer's usage is `{type: "duration", seconds}` (OpenAI's API
 * reference: TranscriptTextUsageDuration); the gpt-4o transcribe models report tokens instead.
 */
describe('costOf: audio billed by duration', () => {
  const whisper: ModelPrice = { model: 'whisper-1', perAudioMinute: 0.006 };
  const seconds = (audioSeconds: number): TokenUsage => ({ inputTokens: 0, outputTokens: 0, audioSeconds });
  it.each([
    { name: 'a minute at the price per minute', u: seconds(60), price: whisper, multiplier: 1, cost: 0.006 },
    { name: 'to the second, never rounded up to the minute', u: seconds(30), price: whisper, multiplier: 1, cost: 0.003 },
    { name: 'a fraction of a second as reported', u: seconds(1.5), price: whisper, multiplier: 1, cost: 0.00015 },
    { name: 'the multiplier scales it', u: seconds(120), price: whisper, multiplier: 2, cost: 0.024 },
    { name: 'no audio reported is 0', u: seconds(0), price: whisper, multiplier: 1, cost: 0 },
    {
      name: 'seconds and tokens in one answer are both billed',
      u: { inputTokens: 1_000_000, outputTokens: 0, audioSeconds: 60 },
      price: { ...whisper, inputPer1M: 1 },
      multiplier: 1,
      cost: 1.006,
    },
    {
      name: 'tokens of a token-priced transcription model, no seconds',
      u: { inputTokens: 1_000_000, outputTokens: 0 },
      price: { model: 'gpt-4o-transcribe', inputPer1M: 2.5 },
      multiplier: 1,
      cost: 2.5,
    },
  ])('$name', ({ u, price, multiplier, cost }) => {
    const result = costOf(u, price, multiplier);
    expect(result.priced).toBe(true);
    expect(Math.abs((result.costCredits ?? Number.NaN) - cost)).toBeLessThanOrEqual(cost * 1e-12);
  });

  it.each([
    { name: 'reported seconds, priced only per token', u: seconds(60), price: { model: 'whisper-1', inputPer1M: 1, outputPer1M: 1 } },
    { name: 'priced per minute, no usage reported', u: null, price: whisper },
    { name: 'priced per minute, only tokens reported', u: { inputTokens: 100, outputTokens: 10 }, price: whisper },
  ])('unknown, never 0: $name', ({ u, price }) => {
    expect(costOf(u, price, 1)).toEqual({ costCredits: null, priced: true });
  });
});

describe('priceOfRequest', () => {
  const prices: ModelPrice[] = [
    { model: 'claude-sonnet-4-5', inputPer1M: 3 },
    { model: 'gpt-4o-mini', inputPer1M: 0.15 },
  ];
  it.each([
    { name: "the gateway id's own price", upstreamModel: 'gpt-4o-mini', routedFrom: 'claude-sonnet-4-5', priced: 'gpt-4o-mini' },
    {
      name: "the alias's price where the gateway id has none",
      upstreamModel: 'vendor/sonnet',
      routedFrom: 'claude-sonnet-4-5',
      priced: 'claude-sonnet-4-5',
    },
    { name: 'no alias: the id alone', upstreamModel: 'gpt-4o-mini', routedFrom: 'gpt-4o-mini', priced: 'gpt-4o-mini' },
    { name: 'neither priced', upstreamModel: 'vendor/x', routedFrom: 'x', priced: undefined },
    { name: 'no model', upstreamModel: null, routedFrom: null, priced: undefined },
  ])('$name', ({ upstreamModel, routedFrom, priced }) => {
    expect(priceOfRequest(prices, { upstreamModel, routedFrom })?.model).toBe(priced);
  });
});

describe('unitsCostOf', () => {
  const sora: ModelPrice = { model: 'sora-2', perVideoSecond: 0.1 };
  const tts: ModelPrice = { model: 'tts-1', perMillionCharacters: 15 };
  it.each([
    { name: 'seconds at a price per second', units: { videoSeconds: 8 }, price: sora, multiplier: 1, credits: 0.8 },
    { name: 'the multiplier applies', units: { videoSeconds: 4 }, price: sora, multiplier: 2, credits: 0.8 },
    { name: 'characters at a price per 1M', units: { speechCharacters: 4096 }, price: tts, multiplier: 1, credits: 0.06144 },
    { name: 'a price per second without seconds is unknown', units: null, price: sora, multiplier: 1, credits: null },
    {
      name: 'a price per 1M characters without characters is unknown',
      units: { videoSeconds: 4 },
      price: tts,
      multiplier: 1,
      credits: null,
    },
    { name: 'a price without either unit adds nothing', units: { videoSeconds: 4 }, price: chat, multiplier: 1, credits: 0 },
  ])('$name', ({ units, price, multiplier, credits }) => {
    const cost = unitsCostOf(units, price, multiplier);
    if (credits === null) expect(cost).toBeNull();
    else expect(cost).toBeCloseTo(credits, 12);
  });

  it('prices a creation with no usage by its seconds, and leaves one whose seconds are unknown unknown', () => {
    expect(costOf(null, { model: 'sora-2', perVideoSecond: 0.1 }, 1, 1, { videoSeconds: 12 }).costCredits).toBeCloseTo(1.2, 12);
    expect(costOf(null, { model: 'sora-2', perVideoSecond: 0.1 }, 1, 1, null)).toEqual({ costCredits: null, priced: true });
    expect(costOf(null, { model: 'tts-1', perMillionCharacters: 15 }, 1, 1, { speechCharacters: 1000 }).costCredits).toBeCloseTo(0.015, 12);
  });
});
