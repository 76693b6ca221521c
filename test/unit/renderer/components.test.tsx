// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import { TokensTable } from '../../../renderer/src/connect/TokensTable.tsx';
import { RequestDetailPanel } from '../../../renderer/src/detail/RequestDetailPanel.tsx';
import { KeyField } from '../../../renderer/src/profiles/KeyField.tsx';
import { StatusBar } from '../../../renderer/src/status/StatusBar.tsx';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { fakeClient } from './fakeClient.ts';

afterEach(cleanup);

describe('KeyField', () => {
  it('sends the key once, clears the field and only ever shows its last four characters', async () => {
    const setKey = vi.fn(async () => ({ set: true, lastFour: SENTINEL_KEY.slice(-4) }));
    const onChanged = vi.fn();
    const { rerender } = render(
      <ApiProvider client={fakeClient({ setKey })}>
        <KeyField profileId="main" status={{ set: false, lastFour: null }} onChanged={onChanged} />
      </ApiProvider>,
    );
    const input = screen.getByLabelText('Key') as HTMLInputElement;
    expect(input.type).toBe('password');
    fireEvent.change(input, { target: { value: SENTINEL_KEY } });
    fireEvent.click(screen.getByRole('button', { name: 'Save key' }));
    await waitFor(() => expect(onChanged).toHaveBeenCalledWith({ set: true, lastFour: SENTINEL_KEY.slice(-4) }));
    expect(setKey).toHaveBeenCalledWith('main', SENTINEL_KEY);
    rerender(
      <ApiProvider client={fakeClient({ setKey })}>
        <KeyField profileId="main" status={{ set: true, lastFour: SENTINEL_KEY.slice(-4) }} onChanged={onChanged} />
      </ApiProvider>,
    );
    expect(screen.getByTestId('key-status').textContent).toBe(`Set, ends in …${SENTINEL_KEY.slice(-4)}`);
    expect((screen.getByLabelText('Replace key') as HTMLInputElement).value).toBe('');
    expect(document.body.innerHTML).not.toContain(SENTINEL_KEY);
  });

  it('asks before removing the key, which cannot be shown back, and keeps focus in the field', async () => {
    const deleteKey = vi.fn(async () => ({ set: false, lastFour: null }));
    const field = (status: { set: boolean; lastFour: string | null }) => (
      <ApiProvider client={fakeClient({ deleteKey })}>
        <KeyField profileId="main" status={status} onChanged={vi.fn()} />
      </ApiProvider>
    );
    const { rerender } = render(field({ set: true, lastFour: 'a8c1' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove key' }));
    expect(screen.getByRole('alertdialog', { name: "Remove this profile's gateway key?" })).toBeTruthy();
    expect(document.activeElement?.textContent).toBe('Keep it');
    fireEvent.click(screen.getByRole('button', { name: 'Keep it' }));
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Remove key'));
    expect(deleteKey).not.toHaveBeenCalled();

    fireEvent.click(screen.getByRole('button', { name: 'Remove key' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove the key' }));
    await waitFor(() => expect(deleteKey).toHaveBeenCalledWith('main'));
    rerender(field({ set: false, lastFour: null }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Key')));
  });
});

describe('a key from AIRLOCK_API_KEY', () => {
  it("is shown as the environment's, for this run, in the profile and in the status bar", () => {
    const key = { set: true, lastFour: SENTINEL_KEY.slice(-4), fromEnvironment: true } as const;
    render(
      <ApiProvider client={fakeClient({})}>
        <KeyField profileId="main" status={key} onChanged={vi.fn()} />
        <StatusBar
          connected
          onTogglePause={vi.fn()}
          onResumeClient={vi.fn()}
          onDismissNotice={vi.fn()}
          status={{
            proxyUrl: 'http://127.0.0.1:8642',
            paused: false,
            inFlight: 0,
            activeProfile: { id: 'main', name: 'Main gateway', key },
            todaySpend: { credits: 0, cny: 0, usdApprox: 0 },
            alarms: [],
            notices: [],
            firstRun: { hasProfile: true, hasKey: true, hasClientToken: true },
          }}
        />
      </ApiProvider>,
    );
    expect(screen.getByTestId('key-status').textContent).toContain(`From AIRLOCK_API_KEY for this run, ends in …${SENTINEL_KEY.slice(-4)}`);
    expect(document.querySelector('.status-bar')?.textContent).toContain('(key from AIRLOCK_API_KEY)');
    expect(document.body.innerHTML).not.toContain(SENTINEL_KEY);
  });
});

describe('TokensTable', () => {
  it('reports a revoke only once the proxy confirmed it, so the setups drop that token', async () => {
    const revokeToken = vi.fn(async () => undefined);
    const onChanged = vi.fn();
    const onRevoked = vi.fn();
    render(
      <ApiProvider client={fakeClient({ revokeToken })}>
        <TokensTable
          tokens={[{ name: 'aider', pinnedProfileId: null, createdAtMs: 0, paused: false, revealable: true }]}
          onChanged={onChanged}
          onRevoked={onRevoked}
        />
      </ApiProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Revoke aider…' }));
    // One click only asks: nothing is revoked until the confirmation.
    expect(revokeToken).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Revoke aider' }));
    await waitFor(() => expect(onChanged).toHaveBeenCalled());
    expect(revokeToken).toHaveBeenCalledWith('aider');
    expect(onRevoked).toHaveBeenCalledWith('aider');
  });

  it('keeps the token shown when the revoke failed', async () => {
    const onRevoked = vi.fn();
    render(
      <ApiProvider client={fakeClient({ revokeToken: async () => Promise.reject(new Error('keychain locked')) })}>
        <TokensTable
          tokens={[{ name: 'aider', pinnedProfileId: null, createdAtMs: 0, paused: false, revealable: true }]}
          onChanged={vi.fn()}
          onRevoked={onRevoked}
        />
      </ApiProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Revoke aider…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Revoke aider' }));
    await screen.findByText('keychain locked');
    expect(onRevoked).not.toHaveBeenCalled();
  });
});

const failedDetail: RequestDetail = {
  id: 'r1',
  startedAtMs: 0,
  state: 'done',
  clientName: 'aider',
  profileId: 'main',
  requestedModel: 'gpt-5x',
  responseModel: null,
  upstreamModel: 'gpt-5x',
  modelMismatch: false,
  upstreamRequestId: null,
  protocol: 'openai',
  protocolMode: 'native',
  ttfbMs: 20,
  durationMs: 25,
  inputTokens: null,
  outputTokens: null,
  cachedInputTokens: null,
  reasoningTokens: null,
  costCredits: null,
  gatewayCost: null,
  usageEstimated: false,
  agentSessionId: null,
  summary: null,
  method: 'POST',
  clientPath: '/v1/chat/completions',
  upstreamPath: '/v1/chat/completions',
  status: 404,
  errorClass: 'model_not_found',
  errorMessage: 'The model gpt-5x does not exist',
  explanation: {
    errorClass: 'model_not_found',
    title: 'Model not found',
    meaning: 'The gateway does not know this model id',
    fix: 'List the models and copy the exact id.',
    retryable: false,
  },
  requestHeaders: {},
  responseHeaders: {},
  requestBody: null,
  responseBody: null,
  notes: ['Bodies not kept: the request log had over 32 MB of work waiting (a load taking every core).'],
  streamText: null,
  streamEvents: null,
  streamEventOffsetsMs: null,
  stream: false,
  retries: 0,
  replayOf: null,
  replayIds: [],
};

describe('RequestDetailPanel', () => {
  it('shows a failure with its class, meaning and fix, and closes on Escape', async () => {
    const detail = failedDetail;
    const onClose = vi.fn();
    render(
      <ApiProvider client={fakeClient({ request: async () => detail })}>
        <RequestDetailPanel requestId="r1" highlight="" liveRow={undefined} proxyUrl="http://127.0.0.1:1" onClose={onClose} />
      </ApiProvider>,
    );
    expect(await screen.findByText('List the models and copy the exact id.')).toBeTruthy();
    expect(screen.getByText('model_not_found')).toBeTruthy();
    expect(screen.getByText('The model gpt-5x does not exist')).toBeTruthy();
    // Why the bodies below say "none recorded".
    expect(screen.getByText(/^Bodies not kept: the request log had over 32 MB/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Copy support info' })).toBeTruthy();
    fireEvent.keyDown(screen.getByLabelText('Request detail'), { key: 'Escape' });
    expect(onClose).toHaveBeenCalled();
  });

  it("shows the gateway's stated charge beside Airlock's cost, in the gateway's own unit", async () => {
    const answered: RequestDetail = {
      ...failedDetail,
      status: 200,
      errorClass: null,
      errorMessage: null,
      explanation: null,
      inputTokens: 100,
      outputTokens: 16,
      costCredits: 0.0021,
      gatewayCost: 0.000348,
      notes: [],
    };
    render(
      <ApiProvider client={fakeClient({ request: async () => answered })}>
        <RequestDetailPanel requestId="r1" highlight="" liveRow={undefined} proxyUrl="http://127.0.0.1:1" onClose={vi.fn()} />
      </ApiProvider>,
    );
    const charge = await screen.findByTestId('gateway-charge');
    expect(charge.textContent).toMatch(/^0\.000348 as the gateway stated it, in its own unit/);
    expect(charge.textContent).toMatch(/budgets count Airlock's cost/);
  });
});

describe('StatusBar', () => {
  it('shows the address, pause state, profile, spend and alarms', () => {
    const onTogglePause = vi.fn();
    const onResumeClient = vi.fn();
    render(
      <StatusBar
        connected
        onTogglePause={onTogglePause}
        onResumeClient={onResumeClient}
        onDismissNotice={vi.fn()}
        status={{
          proxyUrl: 'http://127.0.0.1:8642',
          paused: true,
          inFlight: 2,
          activeProfile: { id: 'main', name: 'Main gateway', key: { set: true, lastFour: 'a8c1' } },
          todaySpend: { credits: 12.5, cny: 9.38, usdApprox: 1.38 },
          alarms: [
            { kind: 'key_rejected', profileId: 'main', message: 'The gateway rejected the key of profile main' },
            { kind: 'client_paused', clientName: 'aider', message: 'Client aider is paused: 61 requests in a minute' },
          ],
          notices: [],
          firstRun: { hasProfile: true, hasKey: true, hasClientToken: true },
        }}
      />,
    );
    expect(screen.getByText('http://127.0.0.1:8642')).toBeTruthy();
    expect(screen.getByText('Main gateway')).toBeTruthy();
    expect(screen.getByText(/12\.5 credits/)).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('rejected the key');
    fireEvent.click(screen.getByRole('button', { name: 'Resume proxy' }));
    expect(onTogglePause).toHaveBeenCalled();
    // The burst guard's pause alarm carries its own Resume, for that client.
    fireEvent.click(screen.getByRole('button', { name: 'Resume aider' }));
    expect(onResumeClient).toHaveBeenCalledWith('aider');
  });

  it('while Airlock is unreachable, gives its figures as of when it was last reached, not as live', () => {
    const status = {
      proxyUrl: 'http://127.0.0.1:8642',
      paused: true,
      inFlight: 1,
      activeProfile: { id: 'main', name: 'Main gateway', key: { set: true, lastFour: 'a8c1' } },
      todaySpend: { credits: 12.5, cny: 9.38, usdApprox: 1.38 },
      alarms: [],
      notices: [],
      firstRun: { hasProfile: true, hasKey: true, hasClientToken: true },
    };
    const onTogglePause = vi.fn();
    const bar = (connected: boolean) => (
      <StatusBar connected={connected} onTogglePause={onTogglePause} onResumeClient={vi.fn()} onDismissNotice={vi.fn()} status={status} />
    );
    const { rerender } = render(bar(true));
    expect(document.querySelector('.status-bar')?.textContent).toContain('1 in flight');
    // The proxy stopped: the request it held ended with it, and what it spends since is not known here.
    rerender(bar(false));
    const text = document.querySelector('.status-bar')?.textContent ?? '';
    expect(text).not.toContain('1 in flight');
    expect(text).toMatch(/in flight: not known while Airlock is unreachable/);
    expect(text).toMatch(/Today \(as of \d\d:\d\d\): 12\.5 credits/);
    expect(document.querySelector('.status-bar .dot')?.className).toBe('dot offline');
    // Pausing needs the proxy: the button says so instead of doing nothing.
    expect((screen.getByRole('button', { name: 'Resume proxy' }) as HTMLButtonElement).disabled).toBe(true);
    rerender(bar(true));
    expect(document.querySelector('.status-bar')?.textContent).toContain('1 in flight');
    expect((screen.getByRole('button', { name: 'Resume proxy' }) as HTMLButtonElement).disabled).toBe(false);
  });
});
