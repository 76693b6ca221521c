import { memo } from 'react';
import { Highlighted } from './Highlighted.tsx';
import type { Turn } from './conversation.ts';

const ROLE_LABELS: Record<Turn['role'], string> = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool result' };

function TurnItem({ turn, highlight }: { turn: Turn; highlight: string }) {
  return (
    <li className={`turn turn-${turn.role}`}>
      <span className="turn-role">{ROLE_LABELS[turn.role]}</span>
      {turn.parts.length === 0 && <p className="muted">(empty)</p>}
      {turn.parts.map((part, partIndex) => {
        const key = `part-${partIndex}`;
        if (part.kind === 'image')
          return (
            <p key={key} className="muted">
              [image]
            </p>
          );
        if (part.kind === 'text')
          return (
            <p key={key} className="turn-text">
              <Highlighted text={part.text} needle={highlight} />
            </p>
          );
        return (
          <div key={key} className={`tool ${part.kind}`}>
            <span className="tool-label">
              {part.kind === 'tool_call' ? `calls ${part.name}` : `result${part.name ? ` of ${part.name}` : ''}`}
            </span>
            <pre>
              <Highlighted text={part.text} needle={highlight} />
            </pre>
          </div>
        );
      })}
    </li>
  );
}

/**
 * The request's turns, memoised apart from the answer: while a request runs its answer grows at
 * each stream frame, and an agent's history is hundreds of turns, searched for marks at each render.
 */
const RequestTurns = memo(function RequestTurns({ turns, highlight }: { turns: Turn[]; highlight: string }) {
  return turns.map((turn, index) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: turns never reorder; their place is their identity
    <TurnItem key={index} turn={turn} highlight={highlight} />
  ));
});

/** The request's messages and the answer as a conversation; the raw bodies stay below it. */
export function ConversationView({ turns, answer, highlight }: { turns: Turn[]; answer: Turn | null; highlight: string }) {
  return (
    <section className="conversation" aria-labelledby="conversation-title">
      <h3 id="conversation-title">Conversation</h3>
      <ol>
        <RequestTurns turns={turns} highlight={highlight} />
        {answer && <TurnItem turn={answer} highlight={highlight} />}
      </ol>
    </section>
  );
}
