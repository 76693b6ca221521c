import type { RequestLogRow, SpendByDayRow, SpendGroupBy } from '../../contracts/log.ts';
import { toCny } from '../../spend/constants.ts';
import { redactKnownSecrets } from '../../core/redact.ts';
import { type CsvCell, spreadsheetCsv } from '../../core/spreadsheetCsv.ts';
import { fallbackChainText, gatewayKeysText } from './chainText.ts';

/** Sums of floating credits carry noise (0.30000000000000004); twelve significant digits keep every real digit. */
function amount(value: number | null): number | null {
  return value === null ? null : Number(value.toPrecision(12));
}

/** The request list's columns, in the order a spreadsheet shows them; unknown figures stay empty, never 0. */
const REQUEST_COLUMNS: ReadonlyArray<readonly [header: string, cell: (row: RequestLogRow) => CsvCell]> = [
  ['id', (row) => row.id],
  ['started_at', (row) => new Date(row.startedAtMs).toISOString()],
  ['state', (row) => row.state],
  ['client', (row) => row.clientName],
  ['profile', (row) => row.profileId],
  ['method', (row) => row.method],
  ['path', (row) => row.clientPath],
  ['protocol', (row) => row.protocol],
  ['protocol_mode', (row) => row.protocolMode],
  ['requested_model', (row) => row.requestedModel],
  ['upstream_model', (row) => row.upstreamModel],
  ['response_model', (row) => row.responseModel],
  ['stream', (row) => row.stream],
  ['status', (row) => row.status],
  ['error_class', (row) => row.errorClass],
  ['error_message', (row) => row.errorMessage],
  ['retries', (row) => row.retries],
  ['ttfb_ms', (row) => row.ttfbMs],
  ['duration_ms', (row) => row.durationMs],
  ['input_tokens', (row) => row.inputTokens],
  ['output_tokens', (row) => row.outputTokens],
  ['cached_input_tokens', (row) => row.cachedInputTokens],
  ['reasoning_tokens', (row) => row.reasoningTokens],
  ['usage_source', (row) => row.usageSource],
  ['cost_credits', (row) => amount(row.costCredits)],
  // Issue 22's columns come last, so spreadsheets built on the earlier columns keep their places.
  ['agent_session', (row) => row.agentSessionId],
  ['replay_of', (row) => row.replayOf],
  ['fallback_chain', (row) => (row.fallbackChain ? fallbackChainText(row.fallbackChain) : null)],
  ['gateway_keys', (row) => (row.gatewayKeys ? gatewayKeysText(row.gatewayKeys) : null)],
  // What the gateway said it charged, in its own unit (OpenRouter's credits, LiteLLM's USD), never
  // Airlock's credits: a column of its own for reconciling the price table against the gateway's bill.
  ['gateway_cost_gateway_unit', (row) => amount(row.gatewayCost ?? null)],
];

/**
 * Free text from clients, gateways and the user's labels: masked again with the keys known now
 * (the log masked it with the keys it knew then; a client may paste a key as a model or a query).
 */
const MASKED_COLUMNS = new Set([
  'path',
  'requested_model',
  'upstream_model',
  'response_model',
  'error_message',
  'fallback_chain',
  'gateway_keys',
]);

const SPEND_COLUMNS = [
  'day',
  'group_by',
  'group',
  'requests',
  'unpriced_requests',
  'input_tokens',
  'output_tokens',
  'cost_credits',
  'cost_cny',
  // Last, so spreadsheets built on the earlier columns keep their places: the gateway's own
  // statement (in its unit, empty when none) and how many answered requests it leaves out.
  'gateway_cost_gateway_unit',
  'requests_without_gateway_cost',
  // Whose unit the figure is in; with more than one, the figure is empty (a sum of two units is none).
  'gateway_cost_profiles',
] as const;

export interface RequestsCsvOptions {
  /** The first page of a download has the header line; the pages after it do not. */
  header: boolean;
  knownSecrets: string[];
}

export function requestsCsv(rows: readonly RequestLogRow[], options: RequestsCsvOptions): string {
  const records = rows.map((row) =>
    REQUEST_COLUMNS.map(([name, cell]) => {
      const value = cell(row);
      return typeof value === 'string' && MASKED_COLUMNS.has(name) ? redactKnownSecrets(value, options.knownSecrets) : value;
    }),
  );
  return spreadsheetCsv(records, options.header ? REQUEST_COLUMNS.map(([name]) => name) : null);
}

/** Spend per day (in the query's time zone) and group; unpriced requests are counted, not costed. */
export function spendCsv(rows: readonly SpendByDayRow[], groupBy: SpendGroupBy): string {
  const records = rows.map((row): CsvCell[] => [
    row.day,
    groupBy ?? 'none',
    row.group,
    row.requests,
    row.unpricedRequests,
    row.inputTokens,
    row.outputTokens,
    amount(row.costCredits),
    amount(toCny(row.costCredits)),
    amount(row.gatewayCostProfiles.length > 1 ? null : row.gatewayCost),
    row.unstatedRequests,
    row.gatewayCostProfiles.join(' '),
  ]);
  return spreadsheetCsv(records, SPEND_COLUMNS);
}
