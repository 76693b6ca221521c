import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { readBody, relayBody, UpstreamBody, type BodySink } from '../../../proxy/forward/upstreamBody.ts';

/** Stands in for undici's dispatch controller: records pause, resume and abort; an abort reports back like undici does. */
class RecordingController {
  calls: string[] = [];
  paused = false;
  aborted = false;
  reason: Error | null = null;
  /** As undici's controller carries them once the answer's headers are in. */
  rawHeaders: Buffer[] | null = [Buffer.from('content-type'), Buffer.from('text/event-stream')];
  onAbort: (reason: unknown) => void = () => {};
  pause(): void {
    this.paused = true;
    this.calls.push('pause');
  }
  resume(): void {
    if (this.paused) this.calls.push('resume');
    this.paused = false;
  }
  abort(reason: Error): void {
    this.aborted = true;
    this.reason = reason;
    this.calls.push('abort');
    this.onAbort(reason);
  }
}

function bodyWithController(): { body: UpstreamBody; controller: RecordingController } {
  const controller = new RecordingController();
  const body = new UpstreamBody(controller as unknown as Dispatcher.DispatchController);
  controller.onAbort = (reason) => body.fail(reason);
  return { body, controller };
}

/** A reader that takes `room` chunks before it is full, and records what it heard. */
function recordingSink(room = Number.POSITIVE_INFINITY): BodySink & { heard: string[]; room: number } {
  const sink = {
    heard: [] as string[],
    room,
    chunk(chunk: Buffer) {
      sink.heard.push(chunk.toString());
      sink.room -= 1;
      return sink.room > 0;
    },
    end() {
      sink.heard.push('<end>');
    },
    error(error: unknown) {
      sink.heard.push(`<error ${String(error)}>`);
    },
  };
  return sink;
}

const chunk = (text: string): Buffer => Buffer.from(text);

describe('UpstreamBody', () => {
  it("drops the controller's raw header buffers, which would otherwise live as long as the answer", () => {
    const { controller } = bodyWithController();
    expect(controller.rawHeaders).toBeNull();
  });

  it('hands chunks that came before the reader to it in order, then the rest as they come', () => {
    const { body, controller } = bodyWithController();
    body.push(chunk('a'));
    body.push(chunk('b'));
    const sink = recordingSink();
    body.attach(sink);
    body.push(chunk('c'));
    body.finish();
    expect(sink.heard).toEqual(['a', 'b', 'c', '<end>']);
    expect(controller.calls).toEqual([]);
  });

  it('pauses the socket while the reader is full and delivers the end only after the reader took everything', () => {
    const { body, controller } = bodyWithController();
    const sink = recordingSink(1);
    body.attach(sink);
    body.push(chunk('a'));
    expect(controller.paused).toBe(true);
    body.push(chunk('b'));
    body.finish();
    expect(sink.heard).toEqual(['a']);
    sink.room = 5;
    body.resume();
    expect(sink.heard).toEqual(['a', 'b', '<end>']);
  });

  it('resumes the socket once the reader has room again and nothing waits', () => {
    const { body, controller } = bodyWithController();
    const sink = recordingSink(1);
    body.attach(sink);
    body.push(chunk('a'));
    sink.room = 5;
    body.resume();
    expect(controller.calls).toEqual(['pause', 'resume']);
  });

  it('tells a full reader of a break at once and drops what waited', () => {
    const { body } = bodyWithController();
    const sink = recordingSink(1);
    body.attach(sink);
    body.push(chunk('a'));
    body.push(chunk('b'));
    body.fail('stream_interrupted');
    expect(sink.heard).toEqual(['a', '<error stream_interrupted>']);
    body.resume();
    expect(sink.heard).toEqual(['a', '<error stream_interrupted>']);
  });

  it('delivers a break that came before the reader attached', () => {
    const { body } = bodyWithController();
    body.push(chunk('a'));
    body.fail('client_aborted');
    const sink = recordingSink();
    body.attach(sink);
    expect(sink.heard).toEqual(['<error client_aborted>']);
  });

  it('aborts an answer nobody took, but not one that already ended', () => {
    const unread = bodyWithController();
    unread.body.abort('not relayed');
    expect(unread.controller.calls).toEqual(['abort']);
    const ended = bodyWithController();
    ended.body.finish();
    ended.body.abort('not relayed');
    expect(ended.controller.calls).toEqual([]);
  });

  it('on abort after the end, drops what still waited for a full reader and tells it', () => {
    const { body, controller } = bodyWithController();
    body.push(chunk('a'));
    body.push(chunk('b'));
    body.finish();
    const sink = recordingSink(1);
    body.attach(sink);
    body.abort('client_aborted');
    expect(sink.heard).toEqual(['a', '<error client_aborted>']);
    expect(controller.aborted).toBe(false);
  });

  it('refuses a second reader', () => {
    const { body } = bodyWithController();
    body.attach(recordingSink());
    expect(() => body.attach(recordingSink())).toThrow(/one reader/);
  });
});

describe('readBody', () => {
  it.each([
    { name: 'under both limits', chunks: ['ab', 'cd'], keepBytes: 10, maxBytes: 10, kept: ['ab', 'cd'], failure: null },
    {
      name: 'past the bytes kept, read to the end',
      chunks: ['ab', 'cd', 'ef'],
      keepBytes: 3,
      maxBytes: Number.POSITIVE_INFINITY,
      kept: ['ab', 'cd'],
      failure: null,
    },
    { name: 'past the most it reads', chunks: ['ab', 'cd', 'ef'], keepBytes: 4, maxBytes: 4, kept: null, failure: /larger than 4 bytes/ },
  ])('$name', async ({ chunks, keepBytes, maxBytes, kept, failure }) => {
    const { body, controller } = bodyWithController();
    const seen: string[] = [];
    const reading = readBody(body, { keepBytes, maxBytes, onChunk: (piece) => seen.push(piece.toString()) });
    for (const piece of chunks) body.push(chunk(piece));
    body.finish();
    if (failure === null) {
      expect((await reading).map(String)).toEqual(kept);
      expect(seen).toEqual(chunks);
    } else {
      await expect(reading).rejects.toThrow(failure);
      expect(controller.aborted).toBe(true);
      expect(seen).toEqual(['ab', 'cd', 'ef']);
    }
  });
});

/** The client side of relayBody: a response that records what was written to it. */
function fakeResponse(): ServerResponse & { written: string[] } {
  const res = Object.assign(new EventEmitter(), { written: [] as string[] });
  return res as unknown as ServerResponse & { written: string[] };
}

describe('relayBody', () => {
  const writeTo =
    (res: ServerResponse & { written: string[] }, room: { left: number }) =>
    (piece: Buffer): boolean => {
      res.written.push(piece.toString());
      room.left -= 1;
      return room.left > 0;
    };

  it('waits for the client to drain before it takes more, then relays to the end', async () => {
    const { body, controller } = bodyWithController();
    const res = fakeResponse();
    const room = { left: 1 };
    const relaying = relayBody(body, res, writeTo(res, room));
    body.push(chunk('a'));
    expect(controller.paused).toBe(true);
    room.left = 10;
    res.emit('drain');
    expect(controller.paused).toBe(false);
    body.push(chunk('b'));
    body.finish();
    await relaying;
    expect(res.written).toEqual(['a', 'b']);
    expect(res.listenerCount('drain') + res.listenerCount('close')).toBe(0);
  });

  it('fails as client_aborted when the client leaves while full, even after the upstream ended', async () => {
    const { body } = bodyWithController();
    body.push(chunk('a'));
    body.push(chunk('b'));
    body.finish();
    const res = fakeResponse();
    const relaying = relayBody(body, res, writeTo(res, { left: 1 }));
    res.emit('close');
    await expect(relaying).rejects.toBe('client_aborted');
    expect(res.written).toEqual(['a']);
  });

  it('reads through a reader whose methods every relay shares: an open stream holds no closures of its own for it', () => {
    const attachedReader = (): BodySink => {
      const { body } = bodyWithController();
      const readers: BodySink[] = [];
      const attach = body.attach.bind(body);
      body.attach = (reader) => {
        readers.push(reader);
        attach(reader);
      };
      void relayBody(body, fakeResponse(), () => true);
      return readers[0] as BodySink;
    };
    const first = attachedReader();
    const second = attachedReader();
    // Five closures, their context and the reader object were about 0.4 KB of each open stream's heap.
    expect(Object.keys(first)).toEqual([]);
    expect(second.chunk).toBe(first.chunk);
    expect(second.error).toBe(first.error);
  });
});
