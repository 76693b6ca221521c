import { describe, expect, it } from 'vitest';
import { isRequestIdShaped, newRequestId } from '../../../proxy/core/requestId.ts';
import { generateToken } from '../../../proxy/http/clientTokens.ts';

describe('newRequestId', () => {
  it.each([
    { nowMs: 0, prefix: 'alk_000000000000' },
    { nowMs: Date.UTC(2026, 10, 22), prefix: `alk_${Date.UTC(2026, 10, 22).toString(16).padStart(12, '0')}` },
  ])('starts with the time at $nowMs ms and keeps the 32-hex-digit shape', ({ nowMs, prefix }) => {
    const id = newRequestId(nowMs);
    expect(id).toMatch(/^alk_[0-9a-f]{32}$/);
    expect(id.startsWith(prefix)).toBe(true);
  });

  it('sorts as the requests started, so the log appends to its id indexes', () => {
    const startTimes = [1_795_000_000_000, 1_795_000_000_001, 1_795_000_000_255, 1_795_000_000_256, 1_795_000_100_000];
    const ids = startTimes.map((nowMs) => newRequestId(nowMs));
    expect([...ids].sort()).toEqual(ids);
  });

  it('is told from a client token, which shares its prefix', () => {
    expect(isRequestIdShaped(newRequestId())).toBe(true);
    expect(isRequestIdShaped(generateToken())).toBe(false);
    expect(isRequestIdShaped(`${newRequestId()}0`)).toBe(false);
  });

  it('tells apart requests started in the same millisecond', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newRequestId(1_795_000_000_000)));
    expect(ids.size).toBe(1000);
  });
});
