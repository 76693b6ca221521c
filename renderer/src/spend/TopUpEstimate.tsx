import { useState } from 'react';
import { typedNumber } from '../../../proxy/contracts/amounts.ts';
import type { SpendResponse } from '../../../proxy/contracts/spend.ts';
import { formatMoney } from '../common/format.ts';
import { quoteTopUp } from './spendMath.ts';

export function TopUpEstimate({ rates }: { rates: SpendResponse['rates'] }) {
  const [creditsText, setCreditsText] = useState('500');
  // Read as every number field of the window: a decimal comma or a thousands separator is said, never guessed.
  const credits = typedNumber(creditsText);
  const problem = typeof credits === 'object' ? credits.problem : null;
  const quote = typeof credits === 'number' && Number.isFinite(credits) && credits >= 0 ? quoteTopUp(credits, rates) : null;
  return (
    <section className="top-up">
      <h3>Top-up estimate</h3>
      <label>
        Credits to buy
        {/* Text, not type=number: Chromium's number input drops a comma as it is typed, so 0,5 was quoted as 5 credits. */}
        <input type="text" inputMode="decimal" value={creditsText} onChange={(event) => setCreditsText(event.target.value)} />
      </label>
      {quote ? (
        <p>
          Discount {quote.discountPercent}% → pay about <strong>{formatMoney(quote.payCny, 'CNY')}</strong> (≈
          {formatMoney(quote.payUsdApprox, 'USD')} by card).
          {quote.nextTier && ` From ${quote.nextTier.minCredits} credits the discount is ${quote.nextTier.discountPercent}%.`}
        </p>
      ) : (
        <p className="muted">{problem ?? 'Enter a number of credits.'}</p>
      )}
      <p className="muted">
        Tiers: {rates.topUpTiers.map((tier) => `${tier.discountPercent}% from ${tier.minCredits}`).join(', ')}. The amount at checkout
        prevails.
      </p>
    </section>
  );
}
