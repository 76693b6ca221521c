import { memo } from 'react';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import type { FilterField } from '../live/filterForm.ts';
import { CopyButton } from '../common/CopyButton.tsx';
import { FallbackChain } from './FallbackChain.tsx';
import {
  describeCost,
  formatDuration,
  formatGatewayCharge,
  formatTimestamp,
  formatTokens,
  showInvisible,
  timeZoneName,
} from '../common/format.ts';
import { sessionHash } from '../common/useHashRoute.ts';

function IdValue({ label, value }: { label: string; value: string | null }) {
  if (!value) return <span className="muted">not returned</span>;
  return (
    <>
      <code>{value}</code> <CopyButton text={value} label={`Copy ${label}`} compact />
    </>
  );
}

function FilterBy({
  field,
  value,
  what,
  onFilter,
}: {
  field: FilterField;
  value: string | null;
  what: string;
  onFilter?: (field: FilterField, value: string) => void;
}) {
  if (!onFilter || value === null) return null;
  return (
    <button
      type="button"
      className="filter-by"
      // The name starts with the visible words, so voice control users can say them (WCAG 2.5.3).
      aria-label={`Only these: requests with ${what} ${value}`}
      onClick={() => onFilter(field, value)}
    >
      only these
    </button>
  );
}

/** Memoised: a running request's detail renders again at each frame of its stream, and none of this changes with it. */
export const DetailOverview = memo(function DetailOverview({
  detail,
  onFilter,
}: {
  detail: RequestDetail;
  onFilter?: (field: FilterField, value: string) => void;
}) {
  return (
    <dl className="overview">
      <dt>Started</dt>
      <dd>
        <time dateTime={new Date(detail.startedAtMs).toISOString()}>{formatTimestamp(detail.startedAtMs)}</time>{' '}
        <span className="muted">({timeZoneName()})</span>
      </dd>
      <dt>Endpoint</dt>
      <dd>
        <code>
          {detail.method} {detail.clientPath}
        </code>{' '}
        → <code>{detail.upstreamPath}</code> ({detail.protocol}, {detail.protocolMode})
      </dd>
      <dt>Client / profile</dt>
      <dd>
        {showInvisible(detail.clientName ?? '—')}
        <FilterBy field="client" value={detail.clientName} what="client" onFilter={onFilter} /> / {detail.profileId ?? '—'}
        <FilterBy field="profileId" value={detail.profileId} what="profile" onFilter={onFilter} />
      </dd>
      {detail.agentSessionId && (
        <>
          <dt>Session</dt>
          <dd>
            <a href={sessionHash(detail.agentSessionId)}>Open the session's timeline</a> <code>{showInvisible(detail.agentSessionId)}</code>
          </dd>
        </>
      )}
      <dt>Model</dt>
      <dd>
        requested <code>{showInvisible(detail.requestedModel ?? '—')}</code>, sent <code>{showInvisible(detail.upstreamModel ?? '—')}</code>
        , response named <code>{showInvisible(detail.responseModel ?? '—')}</code>
        {detail.modelMismatch && <strong className="warn"> — differs: the gateway may rewrite the model field</strong>}
        <FilterBy field="model" value={detail.requestedModel} what="model" onFilter={onFilter} />
      </dd>
      {detail.fallbackChain && (
        <>
          <dt>Fallback</dt>
          <dd>
            <FallbackChain chain={detail.fallbackChain} />
          </dd>
        </>
      )}
      <dt>Status</dt>
      <dd>
        {detail.status ?? 'no response'} {detail.state === 'interrupted' ? '(interrupted)' : ''}
        <FilterBy field="status" value={detail.status === null ? null : String(detail.status)} what="status" onFilter={onFilter} />
      </dd>
      <dt>Timings</dt>
      <dd>
        first byte {formatDuration(detail.ttfbMs)}, total {formatDuration(detail.durationMs)}
      </dd>
      <dt>Retries</dt>
      <dd>{detail.retries}</dd>
      {detail.gatewayKeys && (
        <>
          <dt>Gateway key</dt>
          <dd data-testid="gateway-keys">
            {detail.gatewayKeys.map((use) => `${use.label} (${use.keyId})`).join(' → ')}
            {detail.gatewayKeys.length > 1 && <span className="muted"> (moved on after a 429 or a rejected key)</span>}
          </dd>
        </>
      )}
      <dt>Tokens</dt>
      <dd>
        in {formatTokens(detail.inputTokens)}, out {formatTokens(detail.outputTokens)}
        {detail.cachedInputTokens !== null && `, cached ${formatTokens(detail.cachedInputTokens)}`}
        {detail.reasoningTokens !== null && `, reasoning ${formatTokens(detail.reasoningTokens)}`}
        {detail.usageEstimated && ' (estimated: the upstream reported no usage)'}
      </dd>
      <dt>Cost</dt>
      <dd>{describeCost(detail)}</dd>
      {detail.gatewayCost !== null && (
        <>
          <dt>Gateway's charge</dt>
          <dd data-testid="gateway-charge">
            {formatGatewayCharge(detail.gatewayCost)}{' '}
            <span className="muted">as the gateway stated it, in its own unit; budgets count Airlock's cost above</span>
          </dd>
        </>
      )}
      <dt>Gateway request id</dt>
      <dd>
        <IdValue label="gateway request id" value={detail.upstreamRequestId} />
      </dd>
      <dt>Airlock request id</dt>
      <dd>
        <IdValue label="Airlock request id" value={detail.id} />
      </dd>
      {detail.notes.length > 0 && (
        <>
          <dt>Notes</dt>
          <dd>
            <ul className="notes">
              {detail.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </dl>
  );
});
