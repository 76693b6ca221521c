import { describe, expect, it, vi } from 'vitest';
import { guardIpcHandler, isTrustedSender, IpcSenderRejectedError } from '../../../electron/logic/ipcGuard.ts';

const ORIGIN = 'http://127.0.0.1:8642';
const topFrame = (url: string) => ({ senderFrame: { url, parent: null } });

describe('isTrustedSender', () => {
  it.each([
    ['the UI in the top frame', topFrame('http://127.0.0.1:8642/_airlock/'), ORIGIN, true],
    ['a UI sub-page', topFrame('http://127.0.0.1:8642/_airlock/profiles'), ORIGIN, true],
    ['a foreign page', topFrame('https://evil.example/_airlock/'), ORIGIN, false],
    ['the proxy outside the UI path', topFrame('http://127.0.0.1:8642/v1/models'), ORIGIN, false],
    ['a data: page', topFrame('data:text/html,hi'), ORIGIN, false],
    ['a sub-frame of the UI', { senderFrame: { url: 'http://127.0.0.1:8642/_airlock/', parent: {} } }, ORIGIN, false],
    ['a destroyed frame', { senderFrame: null }, ORIGIN, false],
    ['before the proxy started', topFrame('http://127.0.0.1:8642/_airlock/'), null, false],
  ])('%s -> %s', (_name, event, origin, expected) => {
    expect(isTrustedSender(event, origin)).toBe(expected);
  });
});

describe('guardIpcHandler', () => {
  it('runs the handler with its arguments for the app window', () => {
    const handler = vi.fn((_event: unknown, text: string) => `ok:${text}`);
    const guarded = guardIpcHandler(() => ORIGIN, handler);
    expect(guarded(topFrame('http://127.0.0.1:8642/_airlock/'), 'a')).toBe('ok:a');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('throws without calling the handler for anyone else', () => {
    const handler = vi.fn();
    const guarded = guardIpcHandler(() => ORIGIN, handler);
    expect(() => guarded(topFrame('https://evil.example/'))).toThrow(IpcSenderRejectedError);
    expect(handler).not.toHaveBeenCalled();
  });

  it('reads the origin per call, so a restarted proxy on another port is followed', () => {
    let origin = ORIGIN;
    const guarded = guardIpcHandler(
      () => origin,
      () => 'ok',
    );
    origin = 'http://127.0.0.1:9000';
    expect(() => guarded(topFrame('http://127.0.0.1:8642/_airlock/'))).toThrow(IpcSenderRejectedError);
    expect(guarded(topFrame('http://127.0.0.1:9000/_airlock/'))).toBe('ok');
  });
});
