import { describe, expect, it } from 'vitest';
import { RequestEvents } from '../../../proxy/contracts/requestEvents.ts';
import { sinkFor } from '../../../proxy/forward/streamRelay.ts';
import { RequestTrace } from '../../../proxy/forward/trace.ts';

/**
 * The trace changes only through named transitions (DESIGN.md): what a stream's observer reports that only
 * a usage estimate reads reaches the trace through its own, and the trace's WrittenOutput stays its own.
 */
describe("a stream's output the estimate reads, through the trace's transitions", () => {
  it('reaches the estimate from the sink', () => {
    const trace = new RequestTrace(new RequestEvents(), 1024);
    const sink = sinkFor(trace);
    sink.onDelta('The third option.');
    sink.onOtherOutput?.('{"path":"a"}');
    sink.onOpaqueOutput?.(30);
    sink.onThinking?.(0, 'Compare the two.');
    sink.onThinkingSignature?.(0, 600);
    expect(trace.outputWritten?.written()).toEqual({
      answerText: 'The third option.',
      otherText: '{"path":"a"}Compare the two.',
      textBytes: null,
      opaqueBytes: 30,
      signedThinking: [{ visibleThinking: 'Compare the two.', visibleBytes: 16, signatureBytes: 600 }],
    });
    expect(trace.streamText()).toBe('The third option.');
  });

  it('keeps its WrittenOutput to itself', () => {
    const trace = new RequestTrace(new RequestEvents(), 1024);
    expect('streamOutput' in trace).toBe(false);
  });

  it("gives each stream a sink that shares its methods with every other stream's (no closures of its own)", () => {
    // With 200 streams open, seven closures a sink were 0.4 KB each of the heap they held for their whole life.
    const first = sinkFor(new RequestTrace(new RequestEvents(), 1024));
    const second = sinkFor(new RequestTrace(new RequestEvents(), 1024));
    expect(Object.keys(first)).toEqual([]);
    expect(second.onDelta).toBe(first.onDelta);
    expect(second.onThinkingSignature).toBe(first.onThinkingSignature);
  });
});
