// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PriceTable } from '../../../proxy/contracts/profileViews.ts';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import type { ControlClient } from '../../../renderer/src/api/client.ts';
import { PriceEditor } from '../../../renderer/src/profiles/PriceEditor.tsx';

afterEach(cleanup);

function clientWith(savePrices: ControlClient['savePrices']): ControlClient {
  const table: PriceTable = { prices: [{ model: 'gpt-x', inputPer1M: 2 }], priceMultiplier: 1 };
  return new Proxy({ prices: async () => table, savePrices } as Partial<ControlClient> as ControlClient, {
    get: (target, name: string) => target[name as keyof ControlClient] ?? (() => Promise.reject(new Error(`unexpected call ${name}`))),
  });
}

/**
 * A price typed as 1e-999 is a real number to the form's input, but below the smallest double it
 * reads as 0: saved, it made the model free. The proxy cannot tell a sent 0 from it, so the form
 * refuses it, as the price file imports do.
 */
describe('PriceEditor', () => {
  it('refuses a price too small to store instead of saving it as 0', async () => {
    const savePrices = vi.fn(async (_profileId: string, table: PriceTable) => table);
    render(
      <ApiProvider client={clientWith(savePrices)}>
        <PriceEditor profileId="main" />
      </ApiProvider>,
    );
    const input = await screen.findByLabelText('Input / 1M for gpt-x');
    fireEvent.change(input, { target: { value: '1e-999' } });
    expect((await screen.findByRole('alert')).textContent).toContain("'1e-999' is too small to store");
    fireEvent.click(screen.getByRole('button', { name: 'Save prices' }));
    expect(savePrices.mock.calls.map(([, table]) => table.prices[0]?.inputPer1M)).not.toContain(0);
  });

  // Infinity: sent as JSON it became null, and the save was refused with "expected number, received null".
  it.each([
    ['Input / 1M for gpt-x', 'a price'],
    ['Multiplier for the whole profile', 'the multiplier'],
  ])('refuses 1e400 typed as %s (%s), naming it, and saves nothing', async (label) => {
    const savePrices = vi.fn(async (_profileId: string, table: PriceTable) => table);
    render(
      <ApiProvider client={clientWith(savePrices)}>
        <PriceEditor profileId="main" />
      </ApiProvider>,
    );
    fireEvent.change(await screen.findByLabelText(label), { target: { value: '1e400' } });
    expect((await screen.findByRole('alert')).textContent).toContain("'1e400' is too large to store");
    const save = screen.getByRole('button', { name: 'Save prices' });
    expect(save.getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(save);
    expect(savePrices).not.toHaveBeenCalled();
  });

  // No multiplier is the prices as listed, as the profile form reads a blank multiplier: refused here, Save stayed off.
  it('saves a multiplier left blank as none (1)', async () => {
    const savePrices = vi.fn(async (_profileId: string, changes: Partial<PriceTable>) => ({
      prices: [{ model: 'gpt-x', inputPer1M: 2 }],
      priceMultiplier: 2,
      ...changes,
    }));
    render(
      <ApiProvider client={clientWith(savePrices)}>
        <PriceEditor profileId="main" />
      </ApiProvider>,
    );
    const multiplier = await screen.findByLabelText('Multiplier for the whole profile');
    fireEvent.change(multiplier, { target: { value: '2' } });
    fireEvent.change(multiplier, { target: { value: '' } });
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Save prices' }));
    await waitFor(() => expect(savePrices).toHaveBeenCalled());
    expect(savePrices.mock.calls[0]?.[1]).toEqual({ priceMultiplier: 1 });
  });

  it('saves a price per audio minute for a model billed by duration (whisper-1)', async () => {
    const savePrices = vi.fn(async (_profileId: string, table: PriceTable) => table);
    render(
      <ApiProvider client={clientWith(savePrices)}>
        <PriceEditor profileId="main" />
      </ApiProvider>,
    );
    fireEvent.change(await screen.findByLabelText('Per audio minute for gpt-x'), { target: { value: '0.006' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save prices' }));
    await waitFor(() => expect(savePrices).toHaveBeenCalled());
    expect(savePrices.mock.calls[0]?.[1].prices[0]).toEqual({ model: 'gpt-x', inputPer1M: 2, perAudioMinute: 0.006 });
  });

  it('gives focus to the next Remove, then to Add model price, as rows are removed', async () => {
    const table: PriceTable = {
      prices: [
        { model: 'a', inputPer1M: 1 },
        { model: 'b', inputPer1M: 2 },
      ],
      priceMultiplier: 1,
    };
    const client = new Proxy({ prices: async () => table } as Partial<ControlClient> as ControlClient, {
      get: (target, name: string) => target[name as keyof ControlClient] ?? (() => Promise.reject(new Error(`unexpected call ${name}`))),
    });
    render(
      <ApiProvider client={client}>
        <PriceEditor profileId="main" />
      </ApiProvider>,
    );
    await screen.findByLabelText('Input / 1M for b');
    const removes = () => screen.getAllByRole('button', { name: 'Remove' });
    removes()[0]?.focus();
    fireEvent.click(removes()[0]!);
    await waitFor(() => expect(screen.queryByLabelText('Input / 1M for a')).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(removes()[0]));
    fireEvent.click(removes()[0]!);
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Add model price'));
  });
});
