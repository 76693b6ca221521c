// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelListResponse } from '../../../proxy/contracts/models.ts';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import type { ControlClient } from '../../../renderer/src/api/client.ts';
import { ReconnectContext } from '../../../renderer/src/common/ScreenBoundary.tsx';
import { ModelsScreen } from '../../../renderer/src/models/ModelsScreen.tsx';

afterEach(cleanup);

function renderModels(answer: ModelListResponse): void {
  const client = { models: async () => answer } as unknown as ControlClient;
  render(
    <ApiProvider client={client}>
      <ModelsScreen activeProfileId="main" />
    </ApiProvider>,
  );
}

describe('the Models screen without a model', () => {
  it('says the gateway listed none when it answered with no ids, instead of asking to refresh as if it had not been asked', async () => {
    // A gateway's 200 whose list is empty, or not a list of { id } (`{"data": "nope"}`): fetched, nothing in it.
    renderModels({ profileId: 'main', fetchedAtMs: Date.now(), models: [], error: null });
    await screen.findByText('The gateway listed no models.');
    expect(document.body.textContent).not.toContain('No models listed yet');
    expect(document.body.textContent).toContain('held no model ids');
  });

  it('asks to refresh when the list was never fetched', async () => {
    renderModels({ profileId: 'main', fetchedAtMs: null, models: [], error: null });
    await screen.findByText('No models listed yet.');
    expect(document.body.textContent).toContain('Refresh to ask the gateway for its list.');
  });
});

describe('the Models screen after a refresh from the gateway', () => {
  it('reads the list the refresh cached when Airlock is back or the profile switches, not the gateway again', async () => {
    const refreshes: boolean[] = [];
    const client = {
      models: async (refresh: boolean) => {
        refreshes.push(refresh);
        return { profileId: 'main', fetchedAtMs: Date.now(), models: [], error: null } satisfies ModelListResponse;
      },
    } as unknown as ControlClient;
    const screenAt = (connections: number, activeProfileId: string) => (
      <ReconnectContext.Provider value={connections}>
        <ApiProvider client={client}>
          <ModelsScreen activeProfileId={activeProfileId} />
        </ApiProvider>
      </ReconnectContext.Provider>
    );
    const { rerender } = render(screenAt(1, 'main'));
    await waitFor(() => expect(refreshes).toEqual([false]));
    fireEvent.click(screen.getByRole('button', { name: 'Refresh from gateway' }));
    await waitFor(() => expect(refreshes).toEqual([false, true]));
    rerender(screenAt(2, 'main'));
    await waitFor(() => expect(refreshes).toHaveLength(3));
    rerender(screenAt(2, 'spare'));
    await waitFor(() => expect(refreshes).toHaveLength(4));
    expect(refreshes).toEqual([false, true, false, false]);
  });
});
