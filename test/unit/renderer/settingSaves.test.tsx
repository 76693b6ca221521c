// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BurstLimits, MemoryLimits } from '../../../proxy/contracts/config.ts';
import type { PriceTable } from '../../../proxy/contracts/profileViews.ts';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import type { ControlClient } from '../../../renderer/src/api/client.ts';
import { BurstLimitsForm } from '../../../renderer/src/connect/BurstLimitsForm.tsx';
import { MemoryLimitsForm } from '../../../renderer/src/connect/MemoryLimitsForm.tsx';
import { PriceEditor } from '../../../renderer/src/profiles/PriceEditor.tsx';

afterEach(cleanup);

function clientWith(methods: Partial<ControlClient>): ControlClient {
  return new Proxy(methods as ControlClient, {
    get: (target, name: string) => target[name as keyof ControlClient] ?? (() => Promise.reject(new Error(`unexpected call ${name}`))),
  });
}

/**
 * A settings form is filled once, and another writer (`airlock memory`, `airlock limits`, a hand
 * edit of airlock.json, the profile form's multiplier) may change a field while it is open: a save
 * sends only what the user edited in it, so the other fields keep what the proxy holds by then.
 */
describe('a settings save sends only the fields the user edited', () => {
  it('the memory form sends the body capture alone when only it was edited', async () => {
    const saveMemoryLimits = vi.fn(async (changes: Partial<MemoryLimits>) => ({ logBacklogMiB: 200, bodyCaptureKiB: 64, ...changes }));
    render(
      <ApiProvider client={clientWith({ memoryLimits: async () => ({ logBacklogMiB: 64, bodyCaptureKiB: 1024 }), saveMemoryLimits })}>
        <MemoryLimitsForm />
      </ApiProvider>,
    );
    fireEvent.change(await screen.findByLabelText(/Body kept per request/), { target: { value: '256' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save memory limits' }));
    await waitFor(() => expect(saveMemoryLimits).toHaveBeenCalled());
    expect(saveMemoryLimits.mock.calls).toEqual([[{ bodyCaptureKiB: 256 }]]);
  });

  it('the burst form sends the requests per minute alone when only they were edited', async () => {
    const saveBurstLimits = vi.fn(async (changes: Partial<BurstLimits>) => ({
      maxRequestsPerMinute: 120,
      maxCreditsPerMinute: 40,
      ...changes,
    }));
    render(
      <ApiProvider
        client={clientWith({ burstLimits: async () => ({ maxRequestsPerMinute: 120, maxCreditsPerMinute: 5 }), saveBurstLimits })}
      >
        <BurstLimitsForm />
      </ApiProvider>,
    );
    fireEvent.change(await screen.findByLabelText('Requests per minute'), { target: { value: '300' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save limits' }));
    await waitFor(() => expect(saveBurstLimits).toHaveBeenCalled());
    expect(saveBurstLimits.mock.calls).toEqual([[{ maxRequestsPerMinute: 300 }]]);
  });

  it('the price editor sends the prices without the multiplier, and the multiplier without the prices', async () => {
    const table: PriceTable = { prices: [{ model: 'gpt-x', inputPer1M: 2 }], priceMultiplier: 1 };
    // The profile form saved a multiplier of 1.5 meanwhile: the answer holds it.
    const savePrices = vi.fn(async (_profileId: string, changes: Partial<PriceTable>) => ({ ...table, priceMultiplier: 1.5, ...changes }));
    render(
      <ApiProvider client={clientWith({ prices: async () => table, savePrices })}>
        <PriceEditor profileId="main" />
      </ApiProvider>,
    );
    fireEvent.change(await screen.findByLabelText('Input / 1M for gpt-x'), { target: { value: '3' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save prices' }));
    await screen.findByText('Prices saved.');
    expect(savePrices.mock.calls).toEqual([['main', { prices: [{ model: 'gpt-x', inputPer1M: 3 }] }]]);
    expect((screen.getByLabelText('Multiplier for the whole profile') as HTMLInputElement).value).toBe('1.5');

    fireEvent.change(screen.getByLabelText('Multiplier for the whole profile'), { target: { value: '2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save prices' }));
    await waitFor(() => expect(savePrices).toHaveBeenCalledTimes(2));
    expect(savePrices.mock.calls[1]).toEqual(['main', { priceMultiplier: 2 }]);
  });
});

/**
 * The save's answer is the setting as the proxy now holds it, with what another writer changed
 * meanwhile: the form shows it at once, not what it was filled with until a second read lands
 * (or never, when that read fails as the proxy stops).
 */
describe('a settings save shows what the proxy answered', () => {
  it('the memory form shows the saved field and the CLI change the answer holds', async () => {
    let loads = 0;
    // The second read (after the save) never lands: the form must not need it.
    const memoryLimits = () =>
      ++loads === 1 ? Promise.resolve({ logBacklogMiB: 64, bodyCaptureKiB: 1024 }) : new Promise<MemoryLimits>(() => {});
    const saveMemoryLimits = async (changes: Partial<MemoryLimits>) => ({ logBacklogMiB: 200, bodyCaptureKiB: 1024, ...changes });
    render(
      <ApiProvider client={clientWith({ memoryLimits, saveMemoryLimits })}>
        <MemoryLimitsForm />
      </ApiProvider>,
    );
    fireEvent.change(await screen.findByLabelText(/Body kept per request/), { target: { value: '256' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save memory limits' }));
    await screen.findByText(/^Saved\./);
    expect((screen.getByLabelText(/Body kept per request/) as HTMLInputElement).value).toBe('256');
    expect((screen.getByLabelText(/Log backlog/) as HTMLInputElement).value).toBe('200');
  });

  it('the burst form shows the saved field and the CLI change the answer holds', async () => {
    let loads = 0;
    const burstLimits = () =>
      ++loads === 1 ? Promise.resolve({ maxRequestsPerMinute: 120, maxCreditsPerMinute: 5 }) : new Promise<BurstLimits>(() => {});
    const saveBurstLimits = async (changes: Partial<BurstLimits>) => ({ maxRequestsPerMinute: 120, maxCreditsPerMinute: 40, ...changes });
    render(
      <ApiProvider client={clientWith({ burstLimits, saveBurstLimits })}>
        <BurstLimitsForm />
      </ApiProvider>,
    );
    fireEvent.change(await screen.findByLabelText('Requests per minute'), { target: { value: '300' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save limits' }));
    await screen.findByText(/^Saved\./);
    expect((screen.getByLabelText('Requests per minute') as HTMLInputElement).value).toBe('300');
    expect((screen.getByLabelText('Credits per minute') as HTMLInputElement).value).toBe('40');
  });
});
