import { useRef, useState } from 'react';
import type { CapabilityBadge, ModelListResponse, ModelRow } from '../../../proxy/contracts/models.ts';
import { useApi } from '../api/ApiContext.tsx';
import { CopyButton } from '../common/CopyButton.tsx';
import { formatDuration, formatPercent, formatTimestamp } from '../common/format.ts';
import { Empty, ErrorState, Loading } from '../common/StateViews.tsx';
import { useAsync } from '../common/useAsync.ts';
import { useSwitchCount } from '../common/useWhenBack.ts';
import { ErrorExplanationView } from '../detail/ErrorExplanationView.tsx';
import { BusyButton } from '../common/BusyButton.tsx';

const CAPABILITY_LABELS: Record<CapabilityBadge['capability'], string> = {
  chat: 'chat',
  stream: 'stream',
  tools: 'tools',
  image_input: 'image in',
  messages_native: '/messages',
  responses_native: '/responses',
};

function priceText(row: ModelRow): string {
  const price = row.price;
  if (!price) return 'unpriced';
  const parts: string[] = [];
  if (price.inputPer1M !== undefined) parts.push(`in ${price.inputPer1M}`);
  if (price.outputPer1M !== undefined) parts.push(`out ${price.outputPer1M}`);
  if (price.perCall !== undefined) parts.push(`${price.perCall}/call`);
  if (price.perAudioMinute !== undefined) parts.push(`${price.perAudioMinute}/audio min`);
  if (price.perVideoSecond !== undefined) parts.push(`${price.perVideoSecond}/video s`);
  if (price.perMillionCharacters !== undefined) parts.push(`${price.perMillionCharacters}/1M chars`);
  return parts.length === 0 ? 'unpriced' : parts.join(', ');
}

function Badges({ badges }: { badges: CapabilityBadge[] }) {
  if (badges.every((badge) => badge.supported === null)) return <span className="muted">not checked</span>;
  return (
    <ul className="badges" aria-label="Capabilities">
      {badges.map((badge) => (
        <li key={badge.capability} className={`badge ${badge.supported === true ? 'yes' : badge.supported === false ? 'no' : 'unknown'}`}>
          {CAPABILITY_LABELS[badge.capability]} {badge.supported === true ? '✓' : badge.supported === false ? '✗' : '?'}
        </li>
      ))}
    </ul>
  );
}

/**
 * Why there is no model to show. A list that was fetched without an error held no ids (an empty
 * list, or a 200 that was not a list of { id }): asking to refresh, as if the gateway had not been
 * asked, sent the user refreshing the same answer beside "Listed at".
 */
function EmptyList({ list }: { list: ModelListResponse }) {
  if (!list.profileId)
    return (
      <Empty title="No active profile.">
        <p>Add a profile and set its key first.</p>
      </Empty>
    );
  if (list.fetchedAtMs !== null && list.error === null)
    return (
      <Empty title="The gateway listed no models.">
        <p>
          Its answer to GET /models held no model ids. Check the profile's base URL, or ask the gateway's operator which models the key may
          use.
        </p>
      </Empty>
    );
  return (
    <Empty title="No models listed yet.">
      <p>Refresh to ask the gateway for its list.</p>
    </Empty>
  );
}

/**
 * `activeProfileId`: the status's (undefined until it is in). The list is the active profile's, so a
 * switch (from the tray too) reads it again; its figures are summed from the log, so a return of
 * Airlock does too.
 */
export function ModelsScreen({ activeProfileId }: { activeProfileId: string | null | undefined }) {
  const api = useApi();
  const [refreshCount, setRefreshCount] = useState(0);
  const [search, setSearch] = useState('');
  const [checking, setChecking] = useState<string | null>(null);
  const switches = useSwitchCount(activeProfileId);
  // A press of Refresh asks the gateway once: the reads after it (Airlock back, a profile switched, a Check) take the
  // list it cached, where asking again by the press's count sent the gateway a GET /models at each of them.
  const refreshedCount = useRef(0);
  const list = useAsync(
    () => {
      const asked = refreshCount;
      return api.models(asked > refreshedCount.current).then((answer) => {
        refreshedCount.current = Math.max(refreshedCount.current, asked);
        return answer;
      });
    },
    `${refreshCount}:${switches}`,
    { readAgainWhenBack: true },
  );

  const check = async (model: string) => {
    setChecking(model);
    try {
      await api.checkCapabilities(model);
      list.reload();
    } finally {
      setChecking(null);
    }
  };

  const needle = search.trim().toLowerCase();
  return (
    <div className="screen models">
      <header className="screen-header">
        <h2>Models</h2>
        <label>
          Search
          <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} />
        </label>
        <button type="button" onClick={() => setRefreshCount((count) => count + 1)}>
          Refresh from gateway
        </button>
      </header>
      <p className="muted">
        Ids exactly as the gateway lists them for this account: pass one as "model". Figures are your own requests, not a promise.
      </p>
      {list.kind === 'loading' && <Loading what="models" />}
      {list.kind === 'error' && <ErrorState error={list.error} onRetry={list.reload} />}
      {list.kind === 'ready' && (
        <>
          {list.value.error && <ErrorExplanationView explanation={list.value.error} message={null} />}
          {list.value.models.length === 0 ? (
            <EmptyList list={list.value} />
          ) : (
            <table className="model-table">
              <thead>
                <tr>
                  <th scope="col">Model id</th>
                  <th scope="col">Price (credits/1M)</th>
                  <th scope="col">Requests</th>
                  <th scope="col">Errors</th>
                  <th scope="col">p50 / p95</th>
                  <th scope="col">TTFB p50</th>
                  <th scope="col">Capabilities</th>
                </tr>
              </thead>
              <tbody>
                {list.value.models
                  .filter((row) => row.id.toLowerCase().includes(needle))
                  .map((row) => (
                    <tr key={row.id}>
                      <th scope="row">
                        <code>{row.id}</code> <CopyButton text={row.id} label={`Copy ${row.id}`} compact />
                      </th>
                      <td>{priceText(row)}</td>
                      <td>{row.stats?.requests ?? 0}</td>
                      <td>{row.stats && row.stats.requests > 0 ? formatPercent(row.stats.errorRate) : '—'}</td>
                      <td>
                        {formatDuration(row.stats?.p50LatencyMs ?? null)} / {formatDuration(row.stats?.p95LatencyMs ?? null)}
                      </td>
                      <td>{formatDuration(row.stats?.p50TtfbMs ?? null)}</td>
                      <td>
                        <Badges badges={row.capabilities} />{' '}
                        <BusyButton busy={checking !== null} onPress={() => void check(row.id)}>
                          {checking === row.id ? 'Checking…' : 'Check'}
                        </BusyButton>
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          )}
          {list.value.fetchedAtMs !== null && <p className="muted">Listed at {formatTimestamp(list.value.fetchedAtMs)}.</p>}
        </>
      )}
    </div>
  );
}
