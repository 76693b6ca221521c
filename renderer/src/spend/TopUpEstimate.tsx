import { useState } from 'react';
import type { SpendResponse } from '../../../proxy/contracts/spend.ts';
import { formatMoney } from '../common/format.ts';
import { quoteTopUp } from './spendMath.ts';

export function TopUpEstimate({ rates }: { rates: SpendResponse['rates'] }) {
  const [creditsText, setCreditsText] = useState('500');
  const credits = Number(creditsText);
  const valid = Number.isFinite(credits) && credits >= 0;
  const quote = valid ? quoteTopUp(credits, rates) : null;
  return (
    <section className="top-up">
      <h3>Top-up estimate</h3>
      <label>
        Credits to buy
        <input type="number" min={0} step={50} value={creditsText} onChange={(event) => setCreditsText(event.target.value)} />
      </label>
      {quote ? (
        <p>
          Discount {quote.discountPercent}% → pay about <strong>{formatMoney(quote.payCny, 'CNY')}</strong> (≈
          {formatMoney(quote.payUsdApprox, 'USD')} by card).
          {quote.nextTier && ` From ${quote.nextTier.minCredits} credits the discount is ${quote.nextTier.discountPercent}%.`}
        </p>
      ) : (
        <p className="muted">Enter a number of credits.</p>
      )}
      <p className="muted">
        Tiers: {rates.topUpTiers.map((tier) => `${tier.discountPercent}% from ${tier.minCredits}`).join(', ')}. The amount at checkout
        prevails.
      </p>
    </section>
  );
}
