import { describe, expect, it } from 'vitest';
import { routeOf } from '../../simulator/routes.ts';

describe('routeOf', () => {
  it.each([
    ['GET', '/', 'misrouted'],
    ['GET', '/models', 'misrouted'],
    ['POST', '/chat/completions', 'misrouted'],
    ['GET', '/v1x/models', 'misrouted'],
    ['GET', '/v1/v1/models', 'misrouted'],
    ['POST', '/v1/v1/chat/completions', 'misrouted'],
    ['GET', '/v1/v1', 'misrouted'],
    ['GET', '/v1/models', 'models'],
    ['GET', '/v1/models?limit=5', 'models'],
    ['POST', '/v1/models', 'methodNotAllowed'],
    ['POST', '/v1/chat/completions', 'chat'],
    ['POST', '/v1/chat/completions?api-version=1', 'chat'],
    ['GET', '/v1/chat/completions', 'methodNotAllowed'],
    ['POST', '/v1/embeddings', 'embeddings'],
    ['GET', '/v1/models/qwen-plus', 'model'],
    ['POST', '/v1/videos', 'videos'],
    ['GET', '/v1/videos', 'methodNotAllowed'],
    ['GET', '/v1/videos/video_sim000001', 'video'],
    ['POST', '/v1/videos/video_sim000001', 'methodNotAllowed'],
    // Answered natively only by a simulator started with nativeProtocols; otherwise the unknown-path 404.
    ['POST', '/v1/responses', 'native'],
    ['POST', '/v1/messages', 'native'],
    ['POST', '/v1/messages/count_tokens', 'native'],
    ['GET', '/v1', 'unknownApi'],
  ])('%s %s -> %s', (method, url, kind) => {
    expect(routeOf(method, url).kind).toBe(kind);
  });

  it('decodes a model id in the path', () => {
    expect(routeOf('GET', '/v1/models/org%2Fmodel-1')).toEqual({ kind: 'model', id: 'org/model-1' });
    expect(routeOf('GET', '/v1/models/bad%zz')).toEqual({ kind: 'model', id: 'bad%zz' });
    expect(routeOf('GET', '/v1/videos/video_1?x=1')).toEqual({ kind: 'video', id: 'video_1' });
  });
});
