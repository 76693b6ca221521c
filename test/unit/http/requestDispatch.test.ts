import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createRequestDispatch, isAppRoute } from '../../../proxy/http/requestDispatch.ts';

describe('isAppRoute', () => {
  it.each<[string, boolean]>([
    ['/', true],
    ['/?probe=1', true],
    ['/favicon.ico', true],
    ['/FAVICON.ICO', true],
    ['/favicon.ico/', true],
    ['/_airlock', true],
    ['/_airlock/', true],
    ['/_airlock/api/status?x=1', true],
    ['/_Airlock/api/status', true],
    ['/v1/chat/completions', false],
    ['/v1/chat/completions?_airlock=1', false],
    ['/chat/completions', false],
    ['//', false],
    ['/v1/', false],
    ['/v1/_airlock', false],
    ['/favicon.ico.png', false],
    ['', false],
  ])('%s -> %s', (target, expected) => {
    expect(isAppRoute(target)).toBe(expected);
  });
});

describe('createRequestDispatch', () => {
  it('answers a forward that threw with a 500 even when reporting it throws, and leaves no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    let sayUnhandled: (reason: unknown) => void = () => undefined;
    const firstUnhandled = new Promise<unknown>((resolve) => (sayUnhandled = resolve));
    const noteUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
      sayUnhandled(reason);
    };
    process.on('unhandledRejection', noteUnhandled);
    let port = 0;
    const dispatch = createRequestDispatch({
      app: (_req, res) => res.end(),
      forward: () => Promise.reject(new Error('a stage failed')),
      port: () => port,
      // The notice board's report reads its known secrets, which can fail.
      reportUnexpectedError: () => {
        throw new Error('the report failed');
      },
    });
    const server = createServer(dispatch);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    try {
      const answered = fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', body: '{}' });
      // Whichever comes first: the client's answer, or the rejection nothing handled (which ends the process on Node 24).
      const first = await Promise.race([answered, firstUnhandled.then((reason) => ({ unhandled: reason }))]);
      expect(first).toBeInstanceOf(Response);
      const response = first as Response;
      expect(response.status).toBe(500);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('internal');
      // The client has its answer only after the handler's chain settled, so a rejection from it was already emitted.
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', noteUnhandled);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
