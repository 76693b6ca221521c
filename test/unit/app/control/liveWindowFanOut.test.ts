import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LiveFrame } from '../../../../proxy/contracts/liveEvents.ts';
import { LiveWindow } from '../../../../proxy/app/control/liveWindow.ts';

/**
 * The hub hands every window the same frame each interval. What a window costs per frame must not
 * include making the frame's text again: with several windows (the app, browser tabs) that work is
 * paid on the forwarding thread once per window per frame.
 */

/** A window's response whose socket takes everything at once, keeping what it was given. */
function readingResponse(): { res: ServerResponse; written: string[] } {
  const written: string[] = [];
  const res = {
    destroyed: false,
    write: (chunk: string) => {
      written.push(chunk);
      return true;
    },
    once: () => res,
  };
  return { res: res as unknown as ServerResponse, written };
}

const windows: LiveWindow[] = [];
afterEach(() => {
  for (const window of windows.splice(0)) window.close();
  vi.restoreAllMocks();
});

describe('a frame sent to several windows', () => {
  it('is made into text once, and every window gets that same text', () => {
    const responses = Array.from({ length: 6 }, readingResponse);
    for (const { res } of responses) windows.push(new LiveWindow(res));
    const frame: LiveFrame = {
      requests: [{ requestId: 'r1', fields: { state: 'in_flight', outputTokens: 3 }, appendText: 'streamed text' }],
      status: null,
    };
    const stringify = vi.spyOn(JSON, 'stringify');
    for (const window of windows) window.send(frame);
    expect(stringify.mock.calls.filter(([value]) => value === frame)).toHaveLength(1);
    const [first] = responses[0]!.written;
    expect(first).toContain('"appendText":"streamed text"');
    for (const { written } of responses) expect(written).toEqual([first]);
  });
});
