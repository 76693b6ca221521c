import type { ServerResponse } from 'node:http';
import type { StreamPlan } from './chatReply.ts';
import { SEED_DIALECT } from './dialect.ts';
import { framingFor, type StreamFraming } from './dialectStream.ts';
import { streamErrorEvent } from './errors.ts';
import { cutConnection, settledUnlessClosed, startEventStream, waitUnlessClosed } from './respond.ts';
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

const SEED_FRAMING = framingFor(SEED_DIALECT.stream, streamErrorEvent());

/**
 * Writes each event (and each keep-alive comment) as its own write, immediately: the relay under
 * test must not merge or delay them. The framing is the dialect's; the default is the seed's.
 */
export async function writeChatStream(
  response: ServerResponse,
  plan: StreamPlan,
  shape: StreamShape,
  closed: AbortSignal,
  framing: StreamFraming = SEED_FRAMING,
): Promise<void> {
  const cutAt = shape.cutAfterChunks === null ? null : Math.min(shape.cutAfterChunks, plan.deltas.length);
  const errorAt = shape.errorAfterChunks === null ? null : Math.min(shape.errorAfterChunks, plan.deltas.length);
  const keepAlive = (): void => {
    if (framing.comment !== null) response.write(framing.comment);
  };
  startEventStream(response);
  keepAlive();
  response.write(framing.event(plan.head));
  for (let sent = 0; sent <= plan.deltas.length; sent += 1) {
    if (cutAt === sent) {
      cutConnection(response);
      return;
    }
    if (errorAt === sent) {
      response.end(framing.errorEvent + (framing.doneAfterError ? framing.event('[DONE]') : ''));
      return;
    }
    const delta = plan.deltas[sent];
    if (delta === undefined) break;
    if (!(await waitUnlessClosed(shape.intervalMs, closed))) return;
    keepAlive();
    response.write(framing.event(delta));
  }
  for (const chunk of plan.tail) response.write(framing.event(chunk));
  if (shape.sendDone && framing.sendDone) response.write(framing.event('[DONE]'));
  response.end();
}

/** Raw bytes for SSE boundary tests: one write per given chunk, nothing added; ended unless `holdOpen`. */
export async function writeRawChunks(
  response: ServerResponse,
  chunks: readonly string[],
  {
    intervalMs,
    holdOpen,
    pause,
  }: { intervalMs: number; holdOpen: boolean; pause?: { beforeChunk: number; until: Promise<unknown> } | undefined },
  closed: AbortSignal,
): Promise<void> {
  startEventStream(response);
  for (const [index, chunk] of chunks.entries()) {
    if (index === pause?.beforeChunk && !(await settledUnlessClosed(pause.until, closed))) return;
    if (!(await waitUnlessClosed(intervalMs, closed))) return;
    response.write(chunk);
  }
  if (!holdOpen) response.end();
}
