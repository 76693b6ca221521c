// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ReconnectContext } from '../../../renderer/src/common/ScreenBoundary.tsx';
import { useAsync } from '../../../renderer/src/common/useAsync.ts';

afterEach(cleanup);

/** A screen of figures summed from the log. */
function Figures({ load }: { load: () => Promise<number> }) {
  const figures = useAsync(load, 'figures', { readAgainWhenBack: true });
  return <p>{figures.kind === 'ready' ? `read ${figures.value}` : figures.kind}</p>;
}

describe('useAsync with readAgainWhenBack while Airlock flaps', () => {
  it('reads once at the first connection, then once per return, failed or not', async () => {
    let reads = 0;
    let failing = false;
    const load = async (): Promise<number> => {
      reads += 1;
      if (failing) throw new Error('Airlock is not reachable');
      return reads;
    };
    const at = (connections: number) => (
      <ReconnectContext.Provider value={connections}>
        <Figures load={load} />
      </ReconnectContext.Provider>
    );
    // Mounted before the window's first connection: that connection is no return.
    const { rerender } = render(at(0));
    await screen.findByText('read 1');
    rerender(at(1));
    // Five returns, the read of every other one failing: one read each, and a failed one is not read twice.
    for (let connections = 2; connections <= 6; connections += 1) {
      failing = connections % 2 === 0;
      const before = reads;
      rerender(at(connections));
      await screen.findByText(failing ? 'error' : `read ${before + 1}`);
      expect(reads).toBe(before + 1);
    }
    // No read of its own once the flapping stops.
    await act(async () => undefined);
    expect(reads).toBe(6);
  });
});
