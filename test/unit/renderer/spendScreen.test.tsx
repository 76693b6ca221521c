// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SpendDay, SpendResponse, SpendRow } from '../../../proxy/contracts/spend.ts';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import type { ControlClient } from '../../../renderer/src/api/client.ts';
import { SpendScreen } from '../../../renderer/src/spend/SpendScreen.tsx';
import { MIXED_UNITS_TEXT } from '../../../renderer/src/spend/GatewayCharges.tsx';
import { ReconnectContext } from '../../../renderer/src/common/ScreenBoundary.tsx';

afterEach(cleanup);

const MONEY = { credits: 2, cny: 2, usdApprox: 0.28 };

function spendRow(key: string, overrides: Partial<SpendRow> = {}): SpendRow {
  return {
    key,
    requests: 2,
    inputTokens: 20,
    outputTokens: 10,
    costCredits: 1,
    unpricedRequests: 0,
    gatewayCost: null,
    gatewayCostMixed: false,
    unstatedRequests: 0,
    ...overrides,
  };
}

function spendResponse(perModel: SpendRow[], perDay: SpendDay[]): SpendResponse {
  return {
    range: '7d',
    totals: { today: MONEY, last7Days: MONEY, last30Days: MONEY },
    perDay,
    perHour: [],
    perModel,
    perClient: [spendRow('codex', { requests: 4, costCredits: 2 })],
    perProfile: [],
    perSession: [],
    budgets: [],
    rates: { cnyPerCredit: 1, usdPerCreditApprox: 0.14, topUpTiers: [] },
  };
}

async function renderSpend(response: SpendResponse): Promise<void> {
  const client = { spend: async () => response } as unknown as ControlClient;
  render(
    <ApiProvider client={client}>
      <SpendScreen spentTodayCredits={null} />
    </ApiProvider>,
  );
  await screen.findByRole('heading', { name: 'Per model' });
}

const sectionOf = (title: string): HTMLElement => screen.getByRole('heading', { name: title }).closest('section')!;
const cellsOf = (section: HTMLElement, rowName: string): string[] =>
  within(within(section).getByRole('row', { name: new RegExp(`^${rowName}`) }))
    .getAllByRole('cell')
    .map((cell) => cell.textContent ?? '');

describe("the Spend screen beside the gateway's own statement of its charge", () => {
  it('shows per model and per day what the gateway stated, in its unit, saying how many requests it leaves out', async () => {
    await renderSpend(
      spendResponse(
        [
          spendRow('alpha', { gatewayCost: 0.0007, gatewayCostMixed: false, unstatedRequests: 1 }),
          spendRow('beta', { gatewayCost: null, gatewayCostMixed: false, unstatedRequests: 1 }),
        ],
        [
          {
            day: '2026-01-14',
            creditsByModel: { alpha: 0.25, beta: 0.5 },
            gatewayCost: 0.0003,
            gatewayCostMixed: false,
            unstatedRequests: 0,
          },
          {
            day: '2026-01-15',
            creditsByModel: { alpha: 0.75, beta: 0.5 },
            gatewayCost: 0.0004,
            gatewayCostMixed: false,
            unstatedRequests: 2,
          },
        ],
      ),
    );
    const perModel = sectionOf('Per model');
    expect(within(perModel).getByRole('columnheader', { name: "Gateway's charge (its unit)" })).toBeTruthy();
    expect(cellsOf(perModel, 'alpha').at(-1)).toBe('0.0007 (partial: 1 request without a statement)');
    expect(cellsOf(perModel, 'beta').at(-1)).toBe('none stated (1 request without a statement)');
    // Airlock's credits keep their own column, untouched by the gateway's figure.
    expect(cellsOf(perModel, 'alpha').at(-2)).toBe('1');

    const perDay = sectionOf("Per day, beside the gateway's statement");
    expect(cellsOf(perDay, '2026-01-14')).toEqual(['0.75', '0.0003']);
    expect(cellsOf(perDay, '2026-01-15')).toEqual(['1.25', '0.0004 (partial: 2 requests without a statement)']);
    expect(perDay.textContent).toContain('it is not the bill');

    // A table none of whose rows the gateway stated a charge for has no such column.
    expect(within(sectionOf('Per client')).queryByRole('columnheader', { name: "Gateway's charge (its unit)" })).toBeNull();
  });

  it('shows none of it where the gateway stated no charge in the range', async () => {
    await renderSpend(
      spendResponse(
        [spendRow('alpha', { unstatedRequests: 2 })],
        [{ day: '2026-01-15', creditsByModel: { alpha: 1 }, gatewayCost: null, gatewayCostMixed: false, unstatedRequests: 2 }],
      ),
    );
    expect(screen.queryByRole('columnheader', { name: "Gateway's charge (its unit)" })).toBeNull();
    expect(screen.queryByRole('heading', { name: "Per day, beside the gateway's statement" })).toBeNull();
  });

  it("shows no sum where several profiles' gateways stated charges, each in its own unit", async () => {
    await renderSpend(
      spendResponse(
        [spendRow('alpha', { gatewayCostMixed: true })],
        [{ day: '2026-01-15', creditsByModel: { alpha: 1 }, gatewayCost: null, gatewayCostMixed: true, unstatedRequests: 0 }],
      ),
    );
    expect(cellsOf(sectionOf('Per model'), 'alpha').at(-1)).toBe(MIXED_UNITS_TEXT);
    expect(cellsOf(sectionOf("Per day, beside the gateway's statement"), '2026-01-15')).toEqual(['1', MIXED_UNITS_TEXT]);
  });
});

describe('the Spend screen as spend goes on', () => {
  /** A client whose answers say today's total, `credits`, as the proxy now has it. */
  function followingClient(): { client: ControlClient; spendNow(credits: number): void; calls: () => number } {
    let credits = 1;
    let calls = 0;
    const spend = async (): Promise<SpendResponse> => {
      calls += 1;
      const today = { credits, cny: credits, usdApprox: credits / 7 };
      return { ...spendResponse([], []), totals: { today, last7Days: today, last30Days: today } };
    };
    const spendNow = (next: number) => {
      credits = next;
    };
    return { client: { spend } as unknown as ControlClient, spendNow, calls: () => calls };
  }
  const todayCard = () => screen.getByRole('heading', { name: 'Today' }).closest('.card')?.textContent ?? '';

  it('reads spend again when the window gets Airlock back: requests may have run while it was away', async () => {
    const gateway = followingClient();
    const at = (reconnects: number) => (
      <ApiProvider client={gateway.client}>
        <ReconnectContext.Provider value={reconnects}>
          <SpendScreen spentTodayCredits={null} />
        </ReconnectContext.Provider>
      </ApiProvider>
    );
    const { rerender } = render(at(1));
    await waitFor(() => expect(todayCard()).toContain('1 credits'));
    gateway.spendNow(3.5);
    rerender(at(2));
    await waitFor(() => expect(todayCard()).toContain('3.5 credits'));
  });

  it("says the figures are behind once today's total in the status moved, and Refresh reads them again", async () => {
    const gateway = followingClient();
    const at = (spentTodayCredits: number) => (
      <ApiProvider client={gateway.client}>
        <SpendScreen spentTodayCredits={spentTodayCredits} />
      </ApiProvider>
    );
    const { rerender } = render(at(1));
    await waitFor(() => expect(todayCard()).toContain('1 credits'));
    expect(screen.queryByText(/figures are behind/)).toBeNull();
    gateway.spendNow(2.25);
    rerender(at(2.25));
    expect(screen.getByRole('status').textContent).toBe(
      "These figures are behind: today's spend is now 2.25 credits. Refresh to read them again.",
    );
    // Read again per priced request, an agent's run would have the proxy's forwarding thread sum the log again and again.
    const calls = gateway.calls();
    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(todayCard()).toContain('2.25 credits'));
    expect(gateway.calls()).toBe(calls + 1);
    expect(screen.queryByText(/figures are behind/)).toBeNull();
  });
});
