// @vitest-environment happy-dom
import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useThrottled } from '../../../renderer/src/common/useThrottled.ts';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('useThrottled', () => {
  it('takes a change after a quiet interval at once, and of the changes within an interval only the last, at its end', () => {
    vi.useFakeTimers();
    const { result, rerender } = renderHook(({ value }) => useThrottled(value, 5_000), { initialProps: { value: 1 } });
    expect(result.current).toBe(1);
    rerender({ value: 2 });
    expect(result.current).toBe(2);
    rerender({ value: 3 });
    rerender({ value: 4 });
    expect(result.current).toBe(2);
    act(() => vi.advanceTimersByTime(4_999));
    expect(result.current).toBe(2);
    act(() => vi.advanceTimersByTime(1));
    expect(result.current).toBe(4);
  });
});
