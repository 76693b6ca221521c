import { describe, expect, it } from 'vitest';
import { faultMatches, FaultQueue, type FaultTarget } from '../../simulator/faults.ts';
import type { Fault } from '../../simulator/types.ts';

const models: FaultTarget = { path: '/v1/models', isChat: false, isStream: false };
const chat: FaultTarget = { path: '/v1/chat/completions', isChat: true, isStream: false };
const chatStream: FaultTarget = { path: '/v1/chat/completions', isChat: true, isStream: true };
const videoCreation: FaultTarget = { path: '/v1/videos', isChat: false, isStream: false, isTaskCreation: true };
const videoPoll: FaultTarget = { path: '/v1/videos/video_1', isChat: false, isStream: false };

describe('faultMatches', () => {
  it.each<[Fault, FaultTarget, boolean]>([
    [{ kind: 'status', status: 500 }, models, true],
    [{ kind: 'status', status: 500, path: '/chat' }, models, false],
    [{ kind: 'status', status: 500, path: '/chat' }, chat, true],
    [{ kind: 'html' }, models, true],
    [{ kind: 'hang' }, models, true],
    [{ kind: 'delayHeaders', ms: 1 }, models, true],
    [{ kind: 'holdHeaders', until: Promise.resolve() }, chat, true],
    [{ kind: 'reply', content: 'x' }, models, false],
    [{ kind: 'reply', content: 'x' }, chat, true],
    [{ kind: 'cutAfter', chunks: 1 }, chat, true],
    [{ kind: 'bodyChunks', chunks: [] }, chatStream, true],
    [{ kind: 'bodyChunks', chunks: [] }, models, false],
    [{ kind: 'noDone' }, chat, false],
    [{ kind: 'noDone' }, chatStream, true],
    [{ kind: 'slowChunks', intervalMs: 5 }, chat, false],
    [{ kind: 'errorEvent', afterChunks: 1 }, chatStream, true],
    [{ kind: 'errorEvent', afterChunks: 1, path: '/embeddings' }, chatStream, false],
    [{ kind: 'createThenFail', status: 504 }, videoCreation, true],
    [{ kind: 'createThenFail' }, videoPoll, false],
    [{ kind: 'createThenFail' }, chat, false],
    [{ kind: 'taskFails' }, videoCreation, true],
    [{ kind: 'taskFails' }, videoPoll, false],
    [{ kind: 'quota' }, chat, true],
    [{ kind: 'quota' }, videoCreation, true],
    [{ kind: 'errorPage', status: 502 }, models, true],
    [{ kind: 'text', status: 200, text: 'ok' }, chatStream, true],
    [{ kind: 'echoKey' }, models, true],
    [{ kind: 'echoKey' }, chatStream, true],
  ])('%j on %j -> %s', (fault, target, expected) => {
    expect(faultMatches(fault, target)).toBe(expected);
  });
});

describe('FaultQueue', () => {
  it('hands out faults in order, one per matching request', () => {
    const queue = new FaultQueue();
    queue.push([
      { kind: 'status', status: 429 },
      { kind: 'status', status: 502 },
    ]);
    expect(queue.take(models)).toEqual({ kind: 'status', status: 429 });
    expect(queue.take(models)).toEqual({ kind: 'status', status: 502 });
    expect(queue.take(models)).toBeUndefined();
  });

  it('leaves a fault for a later request it fits', () => {
    const queue = new FaultQueue();
    queue.push([{ kind: 'noDone' }, { kind: 'status', status: 503 }]);
    expect(queue.take(chat)).toEqual({ kind: 'status', status: 503 });
    expect(queue.take(chat)).toBeUndefined();
    expect(queue.take(chatStream)).toEqual({ kind: 'noDone' });
  });

  it('forgets everything on clear', () => {
    const queue = new FaultQueue();
    queue.push([{ kind: 'hang' }]);
    queue.clear();
    expect(queue.take(models)).toBeUndefined();
  });
});
