// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetList } from '../../../renderer/src/spend/SpendTables.tsx';
import { decideBudget } from '../../../proxy/spend/budgetDecision.ts';

afterEach(cleanup);

describe('BudgetList', () => {
  it('names the status a client really gets at a cap, so the user looks for that in the tool', () => {
    const refusal = decideBudget({
      owners: [
        { kind: 'profile', name: 'work', budget: { dailyCredits: 5 }, totals: { dayCredits: 5, monthCredits: 5 }, inFlightCredits: 0 },
      ],
      estimatedInputCredits: 1,
    });
    if (refusal === null) throw new Error('a request past the daily cap was admitted');
    render(
      <BudgetList
        budgets={[{ scope: 'profile', subject: 'work', period: 'daily', capCredits: 5, spentCredits: 5, reached: true, alertPercent: 100 }]}
      />,
    );
    const statusesNamed = (text: string): string[] => [...text.matchAll(/\b[45]\d\d\b/g)].map((match) => match[0]);
    const capReached = screen.getByText(/Cap reached/).textContent ?? '';
    const atACap = screen.getByText(/At a cap/).textContent ?? '';
    expect(statusesNamed(capReached)).toEqual([String(refusal.status)]);
    expect(statusesNamed(atACap)).toEqual([String(refusal.status)]);
  });
});
