import type { RequestBodiesRecord, RequestLogRow, SpendByDayRow, StoredRequest } from '../../contracts/log.ts';
import { addGatewayCosts, joinGatewayCostProfiles } from '../../contracts/amounts.ts';
import { headerNameSecrets } from '../../core/keyMasker.ts';
import { knownSecretForms, replaceSecretForms } from '../../core/redact.ts';
import { maskRowText } from '../write/rowDraft.ts';

/**
 * The secrets known at the time of a read. A row is masked with those known when it was written;
 * a key learned later (a second pool key, a new key a user had pasted into a prompt first) is in
 * no old row's masking, so every read masks once more with the secrets known now. Only the known
 * secrets: the shapes were masked at write.
 */
export type SecretsNow = () => string[];

export const NO_SECRETS: SecretsNow = () => [];

type Mask = (text: string) => string;

/** The mask for the secrets known now, or null when none is known (nothing to do). */
export function maskNow(secretsNow: SecretsNow): Mask | null {
  return maskOf(secretsNow());
}

function maskOf(secrets: string[]): Mask | null {
  const forms = knownSecretForms(secrets);
  return forms.length === 0 ? null : (text) => replaceSecretForms(text, forms);
}

/**
 * A row's free text masked. The agent session id is kept as stored: it is the key its session is
 * looked up by (masked at write with the secrets known then).
 */
function maskedRow(row: RequestLogRow, mask: Mask): RequestLogRow {
  return { ...maskRowText(row, mask), agentSessionId: row.agentSessionId };
}

export function maskedRows(rows: RequestLogRow[], secretsNow: SecretsNow): RequestLogRow[] {
  const mask = maskNow(secretsNow);
  return mask === null ? rows : rows.map((row) => maskedRow(row, mask));
}

/**
 * The values masked; a header whose name holds a secret (`nameMask`'s, headerNameSecrets) is left
 * out, as the log leaves it out at write (bodyRecord.ts).
 */
function maskedHeaders(headers: Record<string, string>, mask: Mask, nameMask: Mask | null): Record<string, string> {
  const masked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (nameMask === null || nameMask(name) === name) masked[name] = mask(value);
  return masked;
}

function maskedBodies(bodies: RequestBodiesRecord, mask: Mask, nameMask: Mask | null): RequestBodiesRecord {
  const maskNullable = (text: string | null): string | null => (text === null ? null : mask(text));
  return {
    ...bodies,
    requestHeaders: maskedHeaders(bodies.requestHeaders, mask, nameMask),
    responseHeaders: maskedHeaders(bodies.responseHeaders, mask, nameMask),
    requestBody: maskNullable(bodies.requestBody),
    responseBody: maskNullable(bodies.responseBody),
    streamText: maskNullable(bodies.streamText),
    rawEvents: maskNullable(bodies.rawEvents),
  };
}

export function maskedStoredRequest(stored: StoredRequest, secretsNow: SecretsNow): StoredRequest {
  const secrets = secretsNow();
  const mask = maskOf(secrets);
  if (mask === null) return stored;
  const bodies = stored.bodies === null ? null : maskedBodies(stored.bodies, mask, maskOf(headerNameSecrets(secrets)));
  return { row: maskedRow(stored.row, mask), bodies };
}

/**
 * A filter menu's values (a path, a model) masked; values that mask alike become one entry. A
 * masked value filters nothing, which is the price of not showing the key.
 */
export function maskedFacetCounts(counts: { value: string; count: number }[], secretsNow: SecretsNow): { value: string; count: number }[] {
  const mask = maskNow(secretsNow);
  if (mask === null) return counts;
  const byValue = new Map<string, number>();
  for (const { value, count } of counts) {
    const masked = mask(value);
    byValue.set(masked, (byValue.get(masked) ?? 0) + count);
  }
  return [...byValue].map(([value, count]) => ({ value, count }));
}

/**
 * Spend rows grouped by a logged text (a model, a client name) masked; rows of one bucket whose
 * groups mask alike are summed into one, as the filter menus merge their values.
 */
export function maskedSpendGroups(rows: SpendByDayRow[], secretsNow: SecretsNow): SpendByDayRow[] {
  const mask = maskNow(secretsNow);
  if (mask === null) return rows;
  const merged = new Map<string, SpendByDayRow>();
  for (const row of rows) {
    const group = row.group === null ? null : mask(row.group);
    const key = JSON.stringify([row.day, group]);
    const earlier = merged.get(key);
    merged.set(
      key,
      earlier === undefined
        ? { ...row, group }
        : {
            ...earlier,
            requests: earlier.requests + row.requests,
            costCredits: earlier.costCredits + row.costCredits,
            unpricedRequests: earlier.unpricedRequests + row.unpricedRequests,
            inputTokens: earlier.inputTokens + row.inputTokens,
            outputTokens: earlier.outputTokens + row.outputTokens,
            gatewayCost: addGatewayCosts(earlier.gatewayCost, row.gatewayCost),
            gatewayCostProfiles: joinGatewayCostProfiles(earlier.gatewayCostProfiles, row.gatewayCostProfiles),
            unstatedRequests: earlier.unstatedRequests + row.unstatedRequests,
          },
    );
  }
  return [...merged.values()];
}
