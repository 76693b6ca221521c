import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { STREAM_ENDED_EARLY_CODE } from '../../../proxy/core/errorExplanations.ts';
import type { RelayInput } from '../../../proxy/forward/relay.ts';
import { failCutShort, failPassedCutShort } from '../../../proxy/forward/relayFailures.ts';
import { RequestTrace } from '../../../proxy/forward/trace.ts';

/** A JSON answer the gateway ended in order, cut short, as the relay meets it: the client's response as the case leaves it. */
function cutShortInput(res: ServerResponse): { input: RelayInput; trace: RequestTrace; failed: ReturnType<typeof vi.spyOn> } {
  const trace = new RequestTrace(new RequestEvents(), 1024);
  const failed = vi.spyOn(trace, 'failed');
  const input = { res, trace, plan: { protocol: 'openai' }, knownSecrets: [], upstreamRequestId: null } as unknown as RelayInput;
  return { input, trace, failed };
}

function clientResponse(): ServerResponse {
  return new ServerResponse(new IncomingMessage(new Socket()));
}

const CAUSE = 'the gateway ended its answer after 80 bytes, its JSON cut short';

describe('failCutShort', () => {
  it('records the failure once: its class, its code, the status the client got and what happened', () => {
    const { input, trace, failed } = cutShortInput(clientResponse());
    failCutShort(input, 80);
    expect(failed).toHaveBeenCalledTimes(1);
    expect(failed).toHaveBeenCalledWith('stream_interrupted', CAUSE, 502, STREAM_ENDED_EARLY_CODE);
    expect(trace.successFailure).toBe('brokeOff');
  });

  it('records a client already gone as client_aborted, as every other path records a client that left', () => {
    const res = clientResponse();
    res.destroy();
    const { input, trace, failed } = cutShortInput(res);
    failCutShort(input, 80);
    expect(trace.errorClass).toBe('client_aborted');
    expect(failed).toHaveBeenCalledTimes(1);
    expect(failed).toHaveBeenCalledWith('client_aborted', CAUSE);
  });
});

describe('failPassedCutShort', () => {
  it('records a passed-through answer cut short once, billed as broken off, and breaks the client off', () => {
    const res = clientResponse();
    const { input, trace, failed } = cutShortInput(res);
    failPassedCutShort(input, 80);
    expect(failed).toHaveBeenCalledTimes(1);
    expect(failed).toHaveBeenCalledWith('stream_interrupted', CAUSE, undefined, STREAM_ENDED_EARLY_CODE);
    expect(trace.successFailure).toBe('brokeOff');
    expect(res.destroyed).toBe(true);
  });

  it('records a client already gone as client_aborted, not billed as a broken answer', () => {
    const res = clientResponse();
    res.destroy();
    const { input, trace, failed } = cutShortInput(res);
    failPassedCutShort(input, 80);
    expect(failed).toHaveBeenCalledTimes(1);
    expect(failed).toHaveBeenCalledWith('client_aborted', CAUSE);
    expect(trace.successFailure).toBeNull();
  });
});
