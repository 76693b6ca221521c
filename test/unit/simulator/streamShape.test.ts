import { describe, expect, it } from 'vitest';
import { streamShapeFor, type StreamShape } from '../../simulator/stream.ts';
import type { Fault } from '../../simulator/types.ts';

const normal: StreamShape = { intervalMs: 3, cutAfterChunks: null, errorAfterChunks: null, sendDone: true };

describe('streamShapeFor', () => {
  it.each<[Fault | undefined, StreamShape]>([
    [undefined, normal],
    [{ kind: 'reply', content: 'x' }, normal],
    [
      { kind: 'slowChunks', intervalMs: 50 },
      { ...normal, intervalMs: 50 },
    ],
    [
      { kind: 'cutAfter', chunks: 2 },
      { ...normal, cutAfterChunks: 2 },
    ],
    [
      { kind: 'errorEvent', afterChunks: 1 },
      { ...normal, errorAfterChunks: 1 },
    ],
    [{ kind: 'noDone' }, { ...normal, sendDone: false }],
  ])('%j', (fault, shape) => {
    expect(streamShapeFor(fault, 3)).toEqual(shape);
  });
});
