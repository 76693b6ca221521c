import { LocalZoneWatch, osZoneReader, ZONE_CHECK_INTERVAL_MS } from '../core/localZone.ts';
import { type SpendLedger, spentSinceFromLog } from '../spend/spendLedger.ts';
import type { RequestLog } from '../store/requestLog.ts';

/**
 * Today and this month follow the zone the OS shows (a laptop carried across zones), looked at
 * once a minute off the request path; returns the function that stops it.
 */
export function followOsTimeZone(ledger: SpendLedger, log: RequestLog): () => void {
  const watch = new LocalZoneWatch({
    readOsZone: osZoneReader(),
    onChange: (zone) => {
      ledger.followZoneChange(
        spentSinceFromLog((query) => log.spendSince(query)),
        Date.now(),
      );
      console.error(`[airlock] The time zone is now ${zone}: today's and this month's spend and caps follow it.`);
    },
  });
  const look = (): void => {
    try {
      watch.check(Date.now());
    } catch (error) {
      console.error('[airlock] time zone:', error instanceof Error ? error.message : 'check failed');
    }
  };
  look();
  const timer = setInterval(look, ZONE_CHECK_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
