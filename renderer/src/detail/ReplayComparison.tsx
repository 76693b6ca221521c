import type { ReplayResponse, ReplaySide } from '../../../proxy/contracts/replay.ts';
import { formatDuration, formatRowCost, formatTokens } from '../common/format.ts';
import { requestHash } from '../common/useHashRoute.ts';
import { signedChange } from './replayForm.ts';

const dash = (value: string | number | null): string => (value === null ? '—' : String(value));

function statusOf(side: ReplaySide): string {
  return side.errorClass === null ? dash(side.status) : `${dash(side.status)} ${side.errorClass.replaceAll('_', ' ')}`;
}

function tokens(value: number | null, side: ReplaySide): string {
  return value === null ? formatTokens(null) : `${formatTokens(value)}${side.usageEstimated ? ' (est.)' : ''}`;
}

/** Both answers side by side: the figures with their change, then the texts with the words that differ marked. */
export function ReplayComparison({ answer }: { answer: ReplayResponse }) {
  const { original, replay, difference } = answer;
  const rows: [string, string, string, string][] = [
    ['Status', statusOf(original), statusOf(replay), difference.statusChanged ? 'changed' : ''],
    ['Model', dash(original.model), dash(replay.model), original.model === replay.model ? '' : 'changed'],
    [
      'Input tokens',
      tokens(original.inputTokens, original),
      tokens(replay.inputTokens, replay),
      signedChange(difference.inputTokens, 'tokens'),
    ],
    [
      'Output tokens',
      tokens(original.outputTokens, original),
      tokens(replay.outputTokens, replay),
      signedChange(difference.outputTokens, 'tokens'),
    ],
    ['Cost (credits)', formatRowCost(original), formatRowCost(replay), signedChange(difference.costCredits, 'credits')],
    ['Duration', formatDuration(original.durationMs), formatDuration(replay.durationMs), signedChange(difference.durationMs, 'ms')],
  ];
  return (
    <div className="replay-comparison" data-testid="replay-comparison">
      <p>
        Replayed as <a href={requestHash(answer.replayId)}>{answer.replayId}</a> through profile {answer.profileId}
        {answer.edited ? ', with the edited body' : ''}.
      </p>
      <table className="replay-figures">
        <caption>Original and replay</caption>
        <thead>
          <tr>
            <th scope="col">Figure</th>
            <th scope="col">Original</th>
            <th scope="col">Replay</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, before, after, change]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{before}</td>
              <td>{after}</td>
              <td>{change}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="replay-answers">
        <section aria-label="Original answer">
          <h4>Original answer</h4>
          <pre data-testid="replay-original-answer">{original.answerText ?? original.errorMessage ?? '(no answer text)'}</pre>
        </section>
        <section aria-label="Replay answer">
          <h4>Replay answer{difference.answerChanged ? '' : ' (the same)'}</h4>
          <pre data-testid="replay-new-answer">{replay.answerText ?? replay.errorMessage ?? '(no answer text)'}</pre>
        </section>
      </div>
      {difference.answerChanged && difference.answerDiff && (
        <section aria-label="Answer difference">
          <h4>Difference</h4>
          <p className="stream-text replay-diff">
            {difference.answerDiff.map((part, index) =>
              part.kind === 'added' ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: the parts never reorder
                <ins key={index}>{part.text}</ins>
              ) : part.kind === 'removed' ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: the parts never reorder
                <del key={index}>{part.text}</del>
              ) : (
                // biome-ignore lint/suspicious/noArrayIndexKey: the parts never reorder
                <span key={index}>{part.text}</span>
              ),
            )}
          </p>
        </section>
      )}
    </div>
  );
}
