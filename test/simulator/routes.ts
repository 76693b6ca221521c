export type Route =
  | { kind: 'misrouted' }
  | { kind: 'models' }
  | { kind: 'model'; id: string }
  | { kind: 'chat' }
  | { kind: 'native'; protocol: 'messages' | 'responses' | 'count_tokens' }
  | { kind: 'embeddings' }
  | { kind: 'images' }
  | { kind: 'speech' }
  | { kind: 'transcriptions' }
  | { kind: 'completions' }
  | { kind: 'videos' }
  | { kind: 'video'; id: string }
  | { kind: 'methodNotAllowed' }
  | { kind: 'unknownApi' };

export function pathnameOf(url: string): string {
  const queryStart = url.indexOf('?');
  return queryStart === -1 ? url : url.slice(0, queryStart);
}

/** Anything outside /v1, and a duplicated /v1/v1, is what a misrouted reverse proxy serves (docs/gateway-spec.md §4.3, §7). */
export function routeOf(method: string, url: string): Route {
  const pathname = pathnameOf(url);
  if (pathname !== '/v1' && !pathname.startsWith('/v1/')) return { kind: 'misrouted' };
  if (pathname === '/v1/v1' || pathname.startsWith('/v1/v1/')) return { kind: 'misrouted' };
  const expect = (expectedMethod: string, route: Route): Route => (method === expectedMethod ? route : { kind: 'methodNotAllowed' });
  if (pathname === '/v1/models') return expect('GET', { kind: 'models' });
  if (pathname === '/v1/chat/completions') return expect('POST', { kind: 'chat' });
  if (pathname === '/v1/messages') return expect('POST', { kind: 'native', protocol: 'messages' });
  if (pathname === '/v1/messages/count_tokens') return expect('POST', { kind: 'native', protocol: 'count_tokens' });
  if (pathname === '/v1/responses') return expect('POST', { kind: 'native', protocol: 'responses' });
  if (pathname === '/v1/embeddings') return expect('POST', { kind: 'embeddings' });
  if (pathname === '/v1/images/generations') return expect('POST', { kind: 'images' });
  // OpenAI's image edit takes the image and prompt as multipart/form-data and answers as a generation does.
  if (pathname === '/v1/images/edits') return expect('POST', { kind: 'images' });
  if (pathname === '/v1/audio/speech') return expect('POST', { kind: 'speech' });
  if (pathname === '/v1/audio/transcriptions') return expect('POST', { kind: 'transcriptions' });
  if (pathname === '/v1/completions') return expect('POST', { kind: 'completions' });
  if (pathname === '/v1/videos') return expect('POST', { kind: 'videos' });
  const videoMatch = /^\/v1\/videos\/([^/]+)$/.exec(pathname);
  if (videoMatch?.[1] !== undefined) return expect('GET', { kind: 'video', id: safeDecode(videoMatch[1]) });
  const modelMatch = /^\/v1\/models\/([^/]+)$/.exec(pathname);
  if (modelMatch?.[1] !== undefined) return expect('GET', { kind: 'model', id: safeDecode(modelMatch[1]) });
  return { kind: 'unknownApi' };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
