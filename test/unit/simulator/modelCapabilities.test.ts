import { describe, expect, it } from 'vitest';
import { capabilityRefusal, type AccountModels } from '../../simulator/modelCapabilities.ts';
import { TaskStore, videoBody } from '../../simulator/tasks.ts';

const account: AccountModels = {
  capabilities: { 'text-only': { tools: false, images: false }, 'batch-only': { stream: false } },
  closedModels: new Set(['closed-model']),
};
const tools = [{ type: 'function', function: { name: 'f' } }];
const image = {
  role: 'user',
  content: [
    { type: 'text', text: 'look' },
    { type: 'image_url', image_url: { url: 'https://x/y.png' } },
  ],
};

describe('capabilityRefusal', () => {
  it.each<[string, Record<string, unknown>, { status: number; code: string; param?: string | null } | null]>([
    ['a capable model', { model: 'qwen-plus', tools, stream: true, messages: [image] }, null],
    ['a closed model', { model: 'closed-model', messages: [] }, { status: 403, code: 'model_not_open', param: 'model' }],
    ['tools to a model without them', { model: 'text-only', tools, messages: [] }, { status: 400, code: 'tools_unsupported' }],
    ['an empty tool list', { model: 'text-only', tools: [], messages: [] }, null],
    [
      'an image to a text-only model',
      { model: 'text-only', messages: [{ role: 'user', content: 'a' }, image] },
      { status: 400, code: 'image_input_unsupported', param: 'messages.[1].content.[1].type' },
    ],
    [
      'stream to a model that cannot',
      { model: 'batch-only', stream: true, messages: [] },
      { status: 400, code: 'stream_unsupported', param: 'stream' },
    ],
    ['no stream to that model', { model: 'batch-only', stream: false, messages: [] }, null],
  ])('%s', (_name, json, expected) => {
    const refusal = capabilityRefusal(account, json);
    if (expected === null) expect(refusal).toBeNull();
    else
      expect(refusal).toMatchObject({
        status: expected.status,
        subject: json.model,
        body: { error: { code: expected.code, ...(expected.param === undefined ? {} : { param: expected.param }) } },
      });
  });
});

describe('TaskStore', () => {
  it('walks a task from queued to completed, one step per poll', () => {
    const store = new TaskStore();
    const task = store.create({ id: 'video_1', model: 'sora-2', prompt: 'a cat', seconds: '8', failure: null });
    expect(videoBody(task)).toMatchObject({ id: 'video_1', object: 'video', status: 'queued', progress: 0, seconds: '8', error: null });
    expect(store.poll('video_1')).toMatchObject({ status: 'in_progress', progress: 50 });
    expect(store.poll('video_1')).toMatchObject({ status: 'completed', progress: 100 });
    expect(store.poll('video_1')).toMatchObject({ status: 'completed' });
    expect(store.poll('video_2')).toBeUndefined();
  });

  it('ends a failing task failed, with the reason in the body', () => {
    const store = new TaskStore();
    store.create({ id: 'v', model: 'm', prompt: 'p', seconds: '4', failure: 'content policy' });
    store.poll('v');
    const failed = store.poll('v')!;
    expect(videoBody(failed)).toMatchObject({ status: 'failed', error: { code: 'video_generation_failed', message: 'content policy' } });
    expect(store.list()).toHaveLength(1);
    store.clear();
    expect(store.list()).toHaveLength(0);
  });
});
