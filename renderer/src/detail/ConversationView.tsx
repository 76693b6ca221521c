import { Highlighted } from './Highlighted.tsx';
import type { Turn } from './conversation.ts';

const ROLE_LABELS: Record<Turn['role'], string> = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool result' };

/** The request's messages and the answer as a conversation; the raw bodies stay below it. */
export function ConversationView({ turns, highlight }: { turns: Turn[]; highlight: string }) {
  return (
    <section className="conversation" aria-labelledby="conversation-title">
      <h3 id="conversation-title">Conversation</h3>
      <ol>
        {turns.map((turn, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: turns never reorder; their place is their identity
          <li key={index} className={`turn turn-${turn.role}`}>
            <span className="turn-role">{ROLE_LABELS[turn.role]}</span>
            {turn.parts.length === 0 && <p className="muted">(empty)</p>}
            {turn.parts.map((part, partIndex) => {
              const key = `${index}-${partIndex}`;
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
        ))}
      </ol>
    </section>
  );
}
