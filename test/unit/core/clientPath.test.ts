import { describe, expect, it } from 'vitest';
import { isSideEffectCreationPath, toUpstreamPath } from '../../../proxy/core/clientPath.ts';

describe('toUpstreamPath', () => {
  it.each([
    ['/v1/chat/completions', 'chat/completions', ''],
    ['/v1/v1/chat/completions', 'chat/completions', ''],
    ['/v1/v1/v1/models', 'models', ''],
    ['/chat/completions', 'chat/completions', ''],
    ['/v1', '', ''],
    ['/v1/', '', ''],
    ['/', '', ''],
    ['', '', ''],
    ['/v1/messages?beta=true', 'messages', '?beta=true'],
    ['/messages?beta=true&x=%20a', 'messages', '?beta=true&x=%20a'],
    ['/v1/models?', 'models', ''],
    ['//v1//chat///completions', 'chat/completions', ''],
    ['/v1beta/models', 'v1beta/models', ''],
    ['/v1/models/v1', 'models/v1', ''],
    ['/V1/models', 'V1/models', ''],
    ['/v1/models/gpt-4o%2Fmini', 'models/gpt-4o%2Fmini', ''],
    ['http://evil.example/v1/models', 'models', ''],
    ['https://evil.example:9/x?y=1', 'x', '?y=1'],
    ['http://evil.example', '', ''],
    ['/v1/models#frag', 'models', ''],
  ])('%j -> path %j, query %j', (target, path, query) => {
    expect(toUpstreamPath(target)).toEqual({ path, query });
  });

  // Azure OpenAI clients send `{endpoint}/openai/deployments/{deployment}/{endpoint path}?api-version=…`, their
  // other calls `{endpoint}/openai/{endpoint path}` (node_modules/openai/azure.js); Azure's v1 API is `/openai/v1/…`.
  it.each([
    ['/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21', 'chat/completions', '?api-version=2024-10-21', 'gpt-4o'],
    ['/openai/deployments/my%20deployment/embeddings', 'embeddings', '', 'my deployment'],
    ['/v1/openai/deployments/gpt-4o/chat/completions', 'chat/completions', '', 'gpt-4o'],
    ['/openai/models?api-version=2024-10-21', 'models', '?api-version=2024-10-21', undefined],
    ['/openai/responses?api-version=2025-03-01-preview', 'responses', '?api-version=2025-03-01-preview', undefined],
    ['/openai/v1/chat/completions', 'chat/completions', '', undefined],
    ['/openai/deployments?api-version=2022-12-01', 'deployments', '?api-version=2022-12-01', undefined],
    ['/openai/deployments/gpt-4o', 'deployments/gpt-4o', '', undefined],
  ])('the Azure-style %j -> path %j, query %j, model %j', (target, path, query, model) => {
    expect(toUpstreamPath(target)).toEqual({ path, query, ...(model === undefined ? {} : { model }) });
  });

  it('gives the same answer for a target seen before, also after many other targets', () => {
    expect(toUpstreamPath('/v1/v1/embeddings?a=1')).toEqual({ path: 'embeddings', query: '?a=1' });
    for (let index = 0; index < 1_000; index += 1)
      expect(toUpstreamPath(`/v1/x${index}?q=${index}`)).toEqual({ path: `x${index}`, query: `?q=${index}` });
    expect(toUpstreamPath('/v1/v1/embeddings?a=1')).toEqual({ path: 'embeddings', query: '?a=1' });
    expect(Object.isFrozen(toUpstreamPath('/v1/v1/embeddings?a=1'))).toBe(true);
  });

  it.each([
    ['/v1/../../admin', 'admin'],
    ['/../../../etc/passwd', 'etc/passwd'],
    ['/v1/models/../chat/completions', 'chat/completions'],
    ['/v1/./models', 'models'],
    ['/v1/%2e%2e/%2E%2E/admin', 'admin'],
    ['/v1/.%2e/admin', 'admin'],
    ['/v1/..\\..\\admin', 'admin'],
    ['/v1/x/..%2F..%2Fadmin', 'x'],
    ['/v1/x/..%5c..%5cadmin', 'x'],
  ])('dot segments in %j never climb above the base: %j', (target, path) => {
    const result = toUpstreamPath(target);
    expect(result.path).toBe(path);
    expect(result.path.split('/')).not.toContain('..');
  });
});

describe('isSideEffectCreationPath', () => {
  it.each([
    ['images/generations', true],
    ['/v1/images/generations', true],
    ['images/edits', true],
    ['images/variations', true],
    ['videos', true],
    ['videos/abc/remix', true],
    ['video/generations', true],
    ['kling/v1/videos/text2video', true],
    ['mj/submit/imagine', true],
    ['images/generations?async=true', true],
    ['batches', true],
    ['/v1/fine_tuning/jobs', true],
    ['batches/batch_abc/cancel', false],
    ['fine_tuning/jobs/ftjob-abc/cancel', false],
    ['chat/completions', false],
    ['embeddings', false],
    ['models', false],
    ['images', false],
    ['audio/speech', false],
    ['video/submit', true],
    ['/v1/video/status', false],
  ])('%s -> %s', (path, expected) => {
    expect(isSideEffectCreationPath(path)).toBe(expected);
  });
});
