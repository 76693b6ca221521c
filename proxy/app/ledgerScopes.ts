import type { ConfigFile } from '../contracts/config.ts';
import { type SpendLedger, type SpendScope, spentSinceFromLog } from '../spend/spendLedger.ts';
import type { RequestLog } from '../store/requestLog.ts';
import type { ConfigSource } from './configOverlay.ts';

function spendScopes(config: ConfigFile): SpendScope[] {
  return [
    ...config.profiles.map((profile): SpendScope => ({ kind: 'profile', profileId: profile.id })),
    ...config.clientTokens.map((token): SpendScope => ({ kind: 'client', clientName: token.name })),
  ];
}

/** The ledger's totals for every profile and client token, from what the log holds for today and this month. */
export function seedLedger(ledger: SpendLedger, config: ConfigSource, log: RequestLog): void {
  ledger.seed(
    spendScopes(config.snapshot()),
    spentSinceFromLog((query) => log.spendSince(query)),
    Date.now(),
  );
}

/**
 * Seeds each profile and client token added while running, as the start seeds those it finds: the
 * log counts spend by a profile's id and a token's name, so one added again under a name it had
 * before this start (a token deleted last week and made anew today) has that spend in the log this
 * month. Unseeded, the ledger began it at nothing: its caps, and the window's bars read from the
 * ledger, let it spend again what it had spent, until a restart seeded it. Also those added while
 * the log was opening. Returns the function that stops following the profile file.
 */
export function seedScopesAddedLater(ledger: SpendLedger, config: ConfigSource, log: RequestLog): () => void {
  const spentSince = spentSinceFromLog((query) => log.spendSince(query));
  const seedNew = (file: ConfigFile): void => ledger.seedNew(spendScopes(file), spentSince, Date.now());
  seedNew(config.snapshot());
  return config.onChange(seedNew);
}
