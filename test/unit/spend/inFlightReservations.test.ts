import { describe, expect, it } from 'vitest';
import { InFlightReservations, type PricedLater } from '../../../proxy/spend/inFlightReservations.ts';
import type { SpendScope } from '../../../proxy/spend/spendLedger.ts';

const WORK: SpendScope = { kind: 'profile', profileId: 'work' };
const AGENT: SpendScope = { kind: 'client', clientName: 'agent' };

describe('a request admitted while no cap applied', () => {
  it('is priced only when a cap reads the holds, and then held like any other until it ends', () => {
    let pricings = 0;
    const reservations = new InFlightReservations((later: PricedLater) => {
      pricings += 1;
      return later;
    });
    reservations.reserveLater('ended-before', { scopes: [WORK], credits: 5 });
    reservations.release('ended-before');
    reservations.reserveLater('a', { scopes: [WORK, AGENT], credits: 0.2 });
    reservations.reserveLater('b', { scopes: [WORK], credits: 0.3 });
    expect(pricings).toBe(0);

    expect(reservations.reservedCredits(WORK)).toBeCloseTo(0.5, 12);
    expect(reservations.reservedCredits(AGENT)).toBeCloseTo(0.2, 12);
    expect(pricings).toBe(2);
    reservations.release('a');
    expect(reservations.reservedCredits(WORK)).toBeCloseTo(0.3, 12);
    expect(reservations.reservedCredits(AGENT)).toBe(0);
  });

  it('moves with what it may cost when a fallback step takes it, and holds nothing where it states no limit', () => {
    const reservations = new InFlightReservations((later: PricedLater) => later);
    reservations.reserveLater('a', { scopes: [WORK], credits: 0.4 });
    reservations.reserveLater('unbounded', { scopes: [WORK], credits: null });
    expect(reservations.take('a')).toEqual({ scopes: [WORK], credits: 0.4, resent: null });
    expect(reservations.reservedCredits(WORK)).toBe(0);
    expect(reservations.requestCount).toBe(0);
  });
});
