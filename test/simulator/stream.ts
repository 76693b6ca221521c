import type { ServerResponse } from 'node:http';
import type { StreamPlan } from './chatReply.ts';
import { streamErrorEvent } from './errors.ts';
import { cutConnection, sseEvent, startEventStream, waitUnlessClosed } from './respond.ts';
import type { Fault } from './types.ts';

/** How a stream misbehaves, if at all. */
export interface StreamShape {
  intervalMs: number;
  /** Destroy the socket after this many delta chunks. */
  cutAfterChunks: number | null;
  /** Send an error event after this many delta chunks, then end. */
  errorAfterChunks: number | null;
  sendDone: boolean;
}

export function streamShapeFor(fault: Fault | undefined, defaultIntervalMs: number): StreamShape {
  return {
    intervalMs: fault?.kind === 'slowChunks' ? fault.intervalMs : defaultIntervalMs,
    cutAfterChunks: fault?.kind === 'cutAfter' ? fault.chunks : null,
    errorAfterChunks: fault?.kind === 'errorEvent' ? fault.afterChunks : null,
    sendDone: fault?.kind !== 'noDone',
  };
}

/** Writes each event as its own write, immediately: the relay under test must not merge or delay them. */
export async function writeChatStream(response: ServerResponse, plan: StreamPlan, shape: StreamShape, closed: AbortSignal): Promise<void> {
  const cutAt = shape.cutAfterChunks === null ? null : Math.min(shape.cutAfterChunks, plan.deltas.length);
  const errorAt = shape.errorAfterChunks === null ? null : Math.min(shape.errorAfterChunks, plan.deltas.length);
  startEventStream(response);
  response.write(sseEvent(plan.head));
  for (let sent = 0; sent <= plan.deltas.length; sent += 1) {
    if (cutAt === sent) {
      cutConnection(response);
      return;
    }
    if (errorAt === sent) {
      response.end(sseEvent(streamErrorEvent()));
      return;
    }
    const delta = plan.deltas[sent];
    if (delta === undefined) break;
    if (!(await waitUnlessClosed(shape.intervalMs, closed))) return;
    response.write(sseEvent(delta));
  }
  for (const chunk of plan.tail) response.write(sseEvent(chunk));
  if (shape.sendDone) response.write(sseEvent('[DONE]'));
  response.end();
}

/** Raw bytes for SSE boundary tests: one write per given chunk, nothing added. */
export async function writeRawChunks(response: ServerResponse, chunks: readonly string[], intervalMs: number, closed: AbortSignal): Promise<void> {
  startEventStream(response);
  for (const chunk of chunks) {
    if (!(await waitUnlessClosed(intervalMs, closed))) return;
    response.write(chunk);
  }
  response.end();
}
