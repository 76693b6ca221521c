import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import { requestHash } from '../common/useHashRoute.ts';

/** The link between a request and its replays, both ways. */
export function ReplayLinks({ detail }: { detail: RequestDetail }) {
  if (detail.replayOf === null && detail.replayIds.length === 0) return null;
  return (
    <nav aria-label="Replays" className="replay-links">
      {detail.replayOf !== null && (
        <p>
          Replay of <a href={requestHash(detail.replayOf)}>{detail.replayOf}</a>
        </p>
      )}
      {detail.replayIds.length > 0 && (
        <p>
          Replayed as{' '}
          {detail.replayIds.map((id, index) => (
            <span key={id}>
              {index > 0 && ', '}
              <a href={requestHash(id)}>{id}</a>
            </span>
          ))}
        </p>
      )}
    </nav>
  );
}
