import { describeHop } from '../detail/FallbackChain.tsx';
import { memo } from 'react';
import { formatDuration, formatRowCost, formatTimestamp, formatTokens, showInvisible } from '../common/format.ts';
import { sessionHash } from '../common/useHashRoute.ts';
import type { FilterField } from './filterForm.ts';
import type { LiveRow } from './liveRows.ts';

/** What kind of call a client path is, in a word: chat, messages, responses, embeddings, images, models; else the path. */
export function endpointLabel(clientPath: string): string {
  const path = clientPath.split('?')[0] ?? clientPath;
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/messages/count_tokens')) return 'count tokens';
  if (path.endsWith('/messages')) return 'messages';
  if (/\/responses(\/|$)/.test(path)) return 'responses';
  if (path.endsWith('/embeddings')) return 'embeddings';
  if (path.includes('/images/')) return 'images';
  if (path.endsWith('/models')) return 'models';
  return path;
}

/** The status cell: what a person wants to know at a glance. */
export function statusLabel(row: LiveRow): string {
  if (row.state === 'in_flight') return row.status === null ? 'waiting' : 'streaming';
  if (row.state === 'interrupted') return 'interrupted';
  if (row.errorClass) return `${row.status ?? ''} ${row.errorClass}`.trim();
  return String(row.status ?? '—');
}

interface RequestRowProps {
  row: LiveRow;
  selected: boolean;
  top: number;
  /** 1-based place in the whole list, and the list's size (-1 while older pages are unloaded). */
  position: number;
  setSize: number;
  onSelect: (id: string) => void;
  /** Alt+click on a client, profile, model or status cell: show only requests with that value. */
  onFilter: (field: FilterField, value: string) => void;
}

const FILTER_HINT = 'Alt+click to show only these';

/** Airlock's own session ids (a conversation recognised by its opening) start with this. */
const DERIVED_SESSION_PREFIX = 'conv-';

/**
 * Session ids are UUIDs or long random strings: their first block tells sessions apart in a row.
 * A derived id keeps its prefix and the start of its hash.
 */
export function shortSessionId(sessionId: string): string {
  if (sessionId.startsWith(DERIVED_SESSION_PREFIX)) return sessionId.slice(0, DERIVED_SESSION_PREFIX.length + 6);
  return sessionId.split('-')[0]?.slice(0, 8) || sessionId.slice(0, 8);
}

/** The filter value a status cell stands for: the exact code, or "error" for a failure without one. */
export function statusFilterValue(row: LiveRow): string | null {
  if (row.status !== null) return String(row.status);
  return row.errorClass !== null ? 'error' : null;
}

export const RequestRow = memo(function RequestRow({ row, selected, top, position, setSize, onSelect, onFilter }: RequestRowProps) {
  const failed = row.errorClass !== null || row.state === 'interrupted';
  const model = showInvisible(
    row.responseModel && row.responseModel !== row.requestedModel
      ? `${row.requestedModel ?? '?'} → ${row.responseModel}`
      : (row.requestedModel ?? '—'),
  );
  const tokens =
    row.inputTokens === null && row.outputTokens === null
      ? '—'
      : `${formatTokens(row.inputTokens)} / ${formatTokens(row.outputTokens)}${row.usageEstimated ? '*' : ''}`;
  return (
    // biome-ignore lint/a11y/useFocusableInteractive: the listbox keeps the focus and points at the active row (aria-activedescendant), so rows are not tab stops
    // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox handles the keys (arrows, Home, End, Enter) for every row
    <div
      id={`request-${row.id}`}
      role="option"
      aria-selected={selected}
      aria-posinset={position}
      aria-setsize={setSize}
      className={`request-row${selected ? ' selected' : ''}${failed ? ' failed' : ''}${row.state === 'in_flight' ? ' in-flight' : ''}`}
      style={{ transform: `translateY(${top}px)` }}
      onClick={(event) => {
        const target = event.target as HTMLElement;
        // The session mark opens the session (the detail's Session link does it from the keyboard).
        const session = target.closest<HTMLElement>('[data-session]')?.dataset.session;
        if (session && !event.altKey) {
          window.location.hash = sessionHash(session);
          return;
        }
        const cell = target.closest<HTMLElement>('[data-filter]');
        if (event.altKey && cell?.dataset.filter && cell.dataset.value) onFilter(cell.dataset.filter as FilterField, cell.dataset.value);
        else onSelect(row.id);
      }}
      data-request-id={row.id}
    >
      <span className="cell time" title={formatTimestamp(row.startedAtMs)}>
        {formatTimestamp(row.startedAtMs)}
      </span>
      <span
        className="cell client"
        data-filter="client"
        data-value={row.clientName ?? undefined}
        title={row.agentSessionId ? `Session ${row.agentSessionId}: click the mark to open it. ${FILTER_HINT}` : FILTER_HINT}
      >
        {showInvisible(row.clientName ?? '—')}
        {row.agentSessionId && (
          <span className="session-mark muted" data-session={row.agentSessionId}>
            {' '}
            · {shortSessionId(row.agentSessionId)}
          </span>
        )}
      </span>
      <span className="cell profile" data-filter="profileId" data-value={row.profileId ?? undefined} title={FILTER_HINT}>
        {row.profileId ?? '—'}
      </span>
      <span
        className="cell endpoint"
        title={`${row.method} ${row.clientPath}${row.stream ? ', streamed' : ''}${row.replayOf ? `, a replay of ${row.replayOf}` : ''}`}
      >
        {endpointLabel(row.clientPath)}
        {row.stream && <span className="stream-mark"> · stream</span>}
        {row.replayOf && <span className="stream-mark"> · replay</span>}
      </span>
      <span className="cell model" title={`${model}. ${FILTER_HINT}`} data-filter="model" data-value={row.requestedModel ?? undefined}>
        {model}
      </span>
      <span
        className={`cell status${failed ? ' bad' : ''}`}
        title={`${statusLabel(row)}. ${FILTER_HINT}`}
        data-filter="status"
        data-value={statusFilterValue(row) ?? undefined}
      >
        {statusLabel(row)}
        {row.fallbackChain && (
          <span className="fallback-mark" title={`Fell back: ${row.fallbackChain.map(describeHop).join(' → ')}`}>
            {' '}
            ↪ fell back
          </span>
        )}
      </span>
      <span className="cell num ttfb">{formatDuration(row.ttfbMs)}</span>
      <span className="cell num">{formatDuration(row.durationMs)}</span>
      <span className="cell num token-counts" title={row.usageEstimated ? 'estimated' : undefined}>
        {tokens}
      </span>
      <span className="cell num">{row.state === 'in_flight' ? '' : formatRowCost(row)}</span>
      <span className="cell preview" aria-live="off" title={row.summary ?? undefined}>
        {row.text !== '' ? row.text.slice(-160) : (row.summary ?? '')}
      </span>
    </div>
  );
});

interface RefusalGroupRowProps {
  groupKey: string;
  newest: LiveRow;
  oldest: LiveRow;
  count: number;
  selected: boolean;
  top: number;
  position: number;
  setSize: number;
  onExpand: (groupKey: string) => void;
}

/** A run of identical refusals (a paused client retrying, a budget cap) as one line; a click or Enter opens it. */
export const RefusalGroupRow = memo(function RefusalGroupRow({
  groupKey,
  newest,
  oldest,
  count,
  selected,
  top,
  position,
  setSize,
  onExpand,
}: RefusalGroupRowProps) {
  const span = `${formatTimestamp(oldest.startedAtMs)} – ${formatTimestamp(newest.startedAtMs)}`;
  return (
    // biome-ignore lint/a11y/useFocusableInteractive: the listbox keeps the focus and points at the active row (aria-activedescendant), so rows are not tab stops
    // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox handles Enter for every row, groups included
    <div
      id={`request-group-${groupKey}`}
      role="option"
      aria-selected={selected}
      aria-posinset={position}
      aria-setsize={setSize}
      aria-label={`${count} identical refusals, ${statusLabel(newest)}, from ${newest.clientName ?? 'no client'}, ${span}. Enter shows them.`}
      className={`request-row refusal-group failed${selected ? ' selected' : ''}`}
      style={{ transform: `translateY(${top}px)` }}
      onClick={() => onExpand(groupKey)}
    >
      <span className="group-summary">
        <strong>{count} ×</strong> <span className="bad">{statusLabel(newest)}</span> from {newest.clientName ?? '—'}{' '}
        <span className="muted">
          {span} · {endpointLabel(newest.clientPath)} · click to show each
        </span>
      </span>
    </div>
  );
});

export function RequestListHeader() {
  return (
    <div className="request-row header" aria-hidden="true">
      <span className="cell time">Time</span>
      <span className="cell client">Client</span>
      <span className="cell profile">Profile</span>
      <span className="cell endpoint">Endpoint</span>
      <span className="cell model">Model</span>
      <span className="cell status">Status</span>
      <span className="cell num ttfb">TTFB</span>
      <span className="cell num">Duration</span>
      <span className="cell num token-counts" title="Tokens in / out">
        Tokens
      </span>
      <span className="cell num">Credits</span>
      <span className="cell preview">Text</span>
    </div>
  );
}
