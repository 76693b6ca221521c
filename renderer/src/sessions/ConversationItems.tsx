import type { ConversationItem } from '../../../proxy/contracts/agentSessions.ts';

const LABELS: Record<Exclude<ConversationItem['kind'], 'tool_call' | 'tool_result' | 'image'>, string> = {
  system: 'Instructions',
  user: 'User',
  assistant: 'Assistant',
  reasoning: 'Reasoning',
};

/** The class the conversation view already colours each speaker with. */
function turnClass(item: ConversationItem): string {
  if (item.kind === 'tool_call' || item.kind === 'tool_result') return 'turn-tool';
  if (item.kind === 'reasoning' || item.kind === 'image') return 'turn-system';
  return `turn-${item.kind}`;
}

function ItemBody({ item }: { item: ConversationItem }) {
  switch (item.kind) {
    case 'image':
      return <span className="turn-role">Image</span>;
    case 'tool_call':
      return (
        <div className="tool tool_call">
          <span className="tool-label">
            calls {item.name}
            {item.callId && <span className="muted"> [{item.callId}]</span>}
          </span>
          <pre>{item.text}</pre>
        </div>
      );
    case 'tool_result':
      return (
        <div className="tool tool_result">
          <span className="tool-label">
            tool result{item.callId && <span className="muted"> of [{item.callId}]</span>}
            {item.isError && <strong className="bad-text"> (error)</strong>}
          </span>
          <pre>{item.text}</pre>
        </div>
      );
    default:
      return (
        <>
          <span className="turn-role">{LABELS[item.kind]}</span>
          <p className="turn-text">{item.text}</p>
        </>
      );
  }
}

/** Items of a turn, each coloured by who said it; a cut text says where the whole one is. */
export function ConversationItems({ items, label }: { items: ConversationItem[]; label: string }) {
  return (
    <ol className="session-items" aria-label={label}>
      {items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a turn's items never reorder; their place is their identity
        <li key={index} className={`turn ${turnClass(item)}`}>
          <ItemBody item={item} />
          {'cut' in item && item.cut && <p className="hint">Cut here: the request's detail has the whole text.</p>}
        </li>
      ))}
    </ol>
  );
}
