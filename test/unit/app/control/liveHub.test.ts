import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIVE_TEXT_LIMIT_CHARS, type LiveFrame } from '../../../../proxy/contracts/liveEvents.ts';
import type { StatusResponse } from '../../../../proxy/contracts/status.ts';
import { LiveHub } from '../../../../proxy/app/control/liveHub.ts';
import { RequestEvents } from '../../../../proxy/contracts/requestEvents.ts';
import type { RequestLifecycleEvent } from '../../../../proxy/contracts/lifecycle.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

const status = { proxyUrl: 'http://127.0.0.1:1', paused: false } as StatusResponse;

function start(requestId: string, profileId = 'main'): RequestLifecycleEvent {
  return {
    type: 'start',
    requestId,
    startedAtMs: 1,
    method: 'POST',
    clientPath: '/v1/chat/completions',
    upstreamPath: '/chat/completions',
    profileId,
    clientName: 'c',
    protocol: 'openai',
    protocolMode: 'native',
    requestedModel: 'm',
    upstreamModel: 'm',
    stream: true,
    notes: [],
  };
}

function end(requestId: string, statusCode: number, errorClass: 'auth' | null): RequestLifecycleEvent {
  return {
    type: 'end',
    requestId,
    status: statusCode,
    durationMs: 1,
    ttfbMs: 1,
    retries: 0,
    errorClass,
    errorMessage: null,
    responseModel: null,
    upstreamRequestId: null,
    usage: null,
    usageSource: null,
    costCredits: null,
    bodies: {
      requestHeaders: {},
      responseHeaders: {},
      requestBody: null,
      requestBodyTruncated: false,
      responseBody: null,
      responseBodyTruncated: false,
      streamText: null,
    },
  } as RequestLifecycleEvent;
}

describe('LiveHub', () => {
  let events: RequestEvents;
  let hub: LiveHub;
  let frames: LiveFrame[];

  beforeEach(() => {
    vi.useFakeTimers();
    events = new RequestEvents();
    hub = new LiveHub({ status: () => status, frameIntervalMs: 100 });
    hub.attach(events);
    frames = [];
  });

  afterEach(() => {
    hub.close();
    vi.useRealTimers();
  });

  it('merges twenty fast streams into one frame per interval', () => {
    hub.addClient((frame) => frames.push(frame));
    frames.length = 0;
    for (let stream = 0; stream < 20; stream += 1) events.emit(start(`r${stream}`));
    for (let token = 0; token < 50; token += 1)
      for (let stream = 0; stream < 20; stream += 1) events.emit({ type: 'delta', requestId: `r${stream}`, text: `${token},` });
    expect(frames).toHaveLength(0);
    vi.advanceTimersByTime(100);
    expect(frames).toHaveLength(1);
    expect(frames[0]!.requests).toHaveLength(20);
    expect(frames[0]!.requests[7]!.appendText).toBe(Array.from({ length: 50 }, (_, token) => `${token},`).join(''));
    expect(frames[0]!.status).toBe(status);
  });

  it('gives a window that connects mid-stream the requests in flight with their text so far', () => {
    events.emit(start('r1'));
    events.emit({ type: 'delta', requestId: 'r1', text: 'Hello ' });
    events.emit({ type: 'delta', requestId: 'r1', text: 'world' });
    events.emit(start('r2'));
    events.emit(end('r2', 200, null));
    hub.addClient((frame) => frames.push(frame));
    expect(frames[0]!.requests).toEqual([
      { requestId: 'r1', fields: expect.objectContaining({ state: 'in_flight' }), appendText: 'Hello world' },
    ]);
  });

  it('sends nothing when nothing changed', () => {
    hub.addClient((frame) => frames.push(frame));
    vi.advanceTimersByTime(1_000);
    expect(frames).toHaveLength(1);
  });

  it('remembers a rejected key until the profile succeeds again or gets a new key', () => {
    events.emit(start('a', 'p1'));
    events.emit(end('a', 401, 'auth'));
    events.emit(start('b', 'p2'));
    events.emit(end('b', 401, 'auth'));
    expect(hub.keyRejectedProfiles().sort()).toEqual(['p1', 'p2']);
    events.emit(start('c', 'p1'));
    events.emit(end('c', 200, null));
    hub.keyReplaced('p2');
    expect(hub.keyRejectedProfiles()).toEqual([]);
  });

  it('masks what a window is sent: paths, model names and streamed text, in frames and in the first frame', () => {
    hub.close();
    hub = new LiveHub({ status: () => status, frameIntervalMs: 100, knownSecrets: () => [SENTINEL_KEY] });
    hub.attach(events);
    events.emit({
      ...start('r1'),
      clientPath: `/v1/chat/completions?key=${SENTINEL_KEY}`,
      requestedModel: SENTINEL_KEY,
    } as RequestLifecycleEvent);
    events.emit({ type: 'delta', requestId: 'r1', text: `key ${SENTINEL_KEY}` });
    hub.addClient((frame) => frames.push(frame));
    events.emit({ type: 'usage', requestId: 'r1', usage: { inputTokens: 1, outputTokens: 1 }, responseModel: `m-${SENTINEL_KEY}` });
    events.emit({ type: 'delta', requestId: 'r1', text: ` again ${SENTINEL_KEY}` });
    vi.advanceTimersByTime(100);
    expect(frames).toHaveLength(2);
    expect(findSentinel(JSON.stringify(frames))).toBeNull();
    expect(frames[0]!.requests[0]).toMatchObject({
      fields: { clientPath: '/v1/chat/completions?key=[redacted]', requestedModel: '[redacted]' },
      appendText: 'key [redacted]',
    });
    expect(frames[1]!.requests[0]).toMatchObject({ fields: { responseModel: 'm-[redacted]' }, appendText: ' again [redacted]' });
  });

  it('reads the secrets once per frame, however many requests and fields it masks', () => {
    hub.close();
    const knownSecrets = vi.fn(() => [SENTINEL_KEY]);
    hub = new LiveHub({ status: () => status, frameIntervalMs: 100, knownSecrets });
    hub.attach(events);
    for (let stream = 0; stream < 5; stream += 1) {
      events.emit({ ...start(`r${stream}`), requestedModel: `m-${SENTINEL_KEY}` } as RequestLifecycleEvent);
      events.emit({ type: 'delta', requestId: `r${stream}`, text: `key ${SENTINEL_KEY}` });
    }
    hub.addClient((frame) => frames.push(frame));
    expect(knownSecrets).toHaveBeenCalledTimes(1);
    for (let stream = 0; stream < 5; stream += 1) {
      events.emit({ type: 'usage', requestId: `r${stream}`, usage: { inputTokens: 1, outputTokens: 1 }, responseModel: 'm' });
      events.emit({ type: 'delta', requestId: `r${stream}`, text: ` again ${SENTINEL_KEY}` });
    }
    vi.advanceTimersByTime(100);
    expect(frames).toHaveLength(2);
    expect(frames[1]!.requests).toHaveLength(5);
    expect(knownSecrets).toHaveBeenCalledTimes(2);
    expect(findSentinel(JSON.stringify(frames))).toBeNull();
  });

  it('sends a written summary to the windows in the next frame, masked, and nothing without a window', () => {
    hub = new LiveHub({ status: () => status, frameIntervalMs: 100, knownSecrets: () => [SENTINEL_KEY] });
    hub.summariesWritten([{ requestId: 'r0', summary: 'before any window' }]);
    hub.addClient((frame) => frames.push(frame));
    vi.advanceTimersByTime(100);
    expect(frames).toHaveLength(1);
    hub.summariesWritten([
      { requestId: 'r1', summary: 'Refactor the token parser' },
      { requestId: 'r2', summary: `pasted ${SENTINEL_KEY}` },
    ]);
    vi.advanceTimersByTime(100);
    expect(frames[1]?.requests).toEqual([
      { requestId: 'r1', fields: { summary: 'Refactor the token parser' }, appendText: '' },
      { requestId: 'r2', fields: { summary: expect.stringMatching(/^pasted /) }, appendText: '' },
    ]);
    expect(findSentinel(JSON.stringify(frames))).toBeNull();
  });

  it('sends a window the tail of a burst only, masked before it is cut, in frames and in the first frame', () => {
    hub.close();
    hub = new LiveHub({ status: () => status, frameIntervalMs: 100, knownSecrets: () => [SENTINEL_KEY] });
    hub.attach(events);
    hub.addClient((frame) => frames.push(frame));
    events.emit(start('r1'));
    // A key that the window's limit falls inside: cut first, its end would be sent unmasked.
    const after = 'words '.repeat(LIVE_TEXT_LIMIT_CHARS / 6).slice(10);
    const text = `${'words '.repeat(20_000)}${SENTINEL_KEY}${after}`;
    for (let offset = 0; offset < text.length; offset += 1_000)
      events.emit({ type: 'delta', requestId: 'r1', text: text.slice(offset, offset + 1_000) });
    vi.advanceTimersByTime(100);
    const sent = frames[1]!.requests[0]!.appendText;
    expect(sent).toHaveLength(LIVE_TEXT_LIMIT_CHARS);
    expect(sent.endsWith(`[redacted]${after}`)).toBe(true);
    expect(sent).not.toContain(SENTINEL_KEY.slice(-8));

    const late: LiveFrame[] = [];
    hub.addClient((frame) => late.push(frame));
    expect(late[0]!.requests[0]!.appendText).toBe(sent);
  });

  it("describes an in-flight upload's body as the log will, never as its bytes read as text", () => {
    events.emit(start('r1'));
    const upload = Buffer.concat([Buffer.from('--b\r\nContent-Type: audio/mpeg\r\n\r\n'), Buffer.from([0xff, 0xfb, 0x90, 0x00, 0xc4])]);
    events.emit({
      type: 'request',
      requestId: 'r1',
      requestHeaders: { 'content-type': 'multipart/form-data; boundary=b', 'content-length': String(upload.length) },
      readBody: () => ({ body: upload, truncated: false }),
    });
    expect(hub.inFlightRequest('r1')?.requestBody).toBe(
      `[binary body not logged: ${upload.length} bytes, multipart/form-data; boundary=b]`,
    );
  });

  it("gives a window that connects mid-stream the request's agent session, as the windows already open got it", () => {
    const open: LiveFrame[] = [];
    hub.addClient((frame) => open.push(frame));
    events.emit(start('r1'));
    events.emit({
      type: 'request',
      requestId: 'r1',
      requestHeaders: { 'content-type': 'application/json', 'X-Claude-Code-Session-Id': 'session-7' },
      readBody: () => ({ body: null, truncated: false }),
    });
    vi.advanceTimersByTime(100);
    expect(open[1]!.requests[0]!.fields.agentSessionId).toBe('session-7');
    hub.addClient((frame) => frames.push(frame));
    expect(frames[0]!.requests[0]!.fields.agentSessionId).toBe('session-7');
  });
});
