import type { SessionTurn } from '../../../proxy/contracts/agentSessions.ts';
import { formatDuration, formatRowCost, formatTimestamp, formatTokens } from '../common/format.ts';
import { requestHash } from '../common/useHashRoute.ts';
import { endpointLabel, statusLabel } from '../live/RequestRow.tsx';
import { ConversationItems } from './ConversationItems.tsx';
import { changeSummary } from './sessionFormat.ts';

function costText(request: SessionTurn['request']): string {
  const cost = formatRowCost(request);
  // A turn no model answered has no usage, hence no cost (not "unpriced").
  return cost === '—' ? 'no cost' : request.costCredits === null ? cost : `${cost} credits`;
}

function noAnswerText(turn: SessionTurn): string {
  if (turn.request.errorClass !== null || (turn.request.status ?? 0) >= 400) return 'No answer: the turn failed (above).';
  return 'No answer body kept (bodies off, or removed by retention).';
}

/** One turn: its figures, what the client added since the turn compared with, what the model answered. */
export function TurnView({ turn }: { turn: SessionTurn }) {
  const { request, change } = turn;
  const failed = request.errorClass !== null || (request.status ?? 0) >= 400;
  const headingId = `turn-${turn.index}-title`;
  const status = statusLabel({ ...request, text: '' });
  return (
    <article className={`session-turn card${failed ? ' failed' : ''}`} aria-labelledby={headingId}>
      <header className="session-turn-header">
        <h3 id={headingId}>Turn {turn.index}</h3>
        <span>{formatTimestamp(request.startedAtMs)}</span>
        <span>
          {endpointLabel(request.clientPath)}
          {request.stream ? ' · stream' : ''}
        </span>
        <span>{request.requestedModel ?? '—'}</span>
        <span className={failed ? 'bad-text' : undefined}>{status}</span>
        <span>{formatDuration(request.durationMs)}</span>
        <span title="Tokens in / out">
          {formatTokens(request.inputTokens)} / {formatTokens(request.outputTokens)}
        </span>
        <span>{costText(request)}</span>
        <a href={requestHash(request.id)}>Open request</a>
      </header>
      {turn.errorMessage && (
        <p className="bad-text" role="note">
          {turn.errorMessage}
        </p>
      )}
      <div className="session-turn-body">
        <section aria-label={`Turn ${turn.index}: what the client sent`}>
          <h4>Client sent</h4>
          <p className="muted">{changeSummary(change)}</p>
          {change.added.length > 0 && <ConversationItems items={change.added} label={`Turn ${turn.index}: new items`} />}
        </section>
        <section aria-label={`Turn ${turn.index}: what the model answered`}>
          <h4>Model answered</h4>
          {turn.answer === null ? (
            <p className="muted">{noAnswerText(turn)}</p>
          ) : turn.answer.length === 0 ? (
            <p className="muted">(empty answer)</p>
          ) : (
            <ConversationItems items={turn.answer} label={`Turn ${turn.index}: answer`} />
          )}
        </section>
      </div>
    </article>
  );
}
