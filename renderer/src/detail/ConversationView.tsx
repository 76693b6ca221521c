import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Highlighted, holdsMatch } from './Highlighted.tsx';
import type { Turn, TurnPart } from './conversation.ts';
import { collapsedNote, NEWEST_TURNS_SHOWN, showEarlierLabel, shownCountFor, shownTurns } from './conversationWindow.ts';

const ROLE_LABELS: Record<Turn['role'], string> = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool result' };

/** A turn's height before it is measured; the virtualiser measures each once shown. */
const ESTIMATED_TURN_PX = 120;

function CutNote({ part }: { part: TurnPart }) {
  if (part.kind === 'image' || part.omittedChars === undefined) return null;
  return <span className="muted"> … {part.omittedChars.toLocaleString()} more characters, in the request body below</span>;
}

/** Memoised: a running request's answer grows at each stream frame, and a turn's search marks are redone only when it or the search changed. */
const TurnItem = memo(function TurnItem({ turn, highlight }: { turn: Turn; highlight: string }) {
  return (
    <div className={`turn turn-${turn.role}`}>
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
              <CutNote part={part} />
            </p>
          );
        return (
          <div key={key} className={`tool ${part.kind}`}>
            <span className="tool-label">
              {part.kind === 'tool_call' ? `calls ${part.name}` : `result${part.name ? ` of ${part.name}` : ''}`}
            </span>
            <pre>
              <Highlighted text={part.text} needle={highlight} />
              <CutNote part={part} />
            </pre>
          </div>
        );
      })}
    </div>
  );
});

const turnMatches = (turn: Turn, highlight: string): boolean =>
  turn.parts.some((part) => part.kind !== 'image' && holdsMatch(part.text, highlight));

/**
 * The turn a search opens the conversation on: the newest that holds it, the answer (index
 * `turns.length`) first; null when none does. Never the system prompt: an agent's is long and holds
 * most words a user searches for ("error", "file", "test"), and opening on it showed every turn and
 * scrolled the detail away from its overview; the body panel below marks a match in it. The newest
 * turns are shown, so this is among them when one of them matches, and otherwise the newest of the
 * collapsed ones that does: the one nearest to what the user was reading.
 */
function searchTarget(turns: Turn[], answer: Turn | null, highlight: string): number | null {
  if (answer !== null && turnMatches(answer, highlight)) return turns.length;
  const index = turns.findLastIndex((turn) => turn.role !== 'system' && turnMatches(turn, highlight));
  return index === -1 ? null : index;
}

/**
 * The turns shown and the answer, only those in view in the DOM: an agent's history is hundreds of
 * turns, each with the files its tools read. It opens at its end, the newest turns.
 */
function TurnList({
  turns,
  firstShown,
  searchMatch,
  answer,
  highlight,
}: {
  turns: Turn[];
  /** Index of `turns[0]` in the whole conversation: a turn keeps its key as earlier ones are shown. */
  firstShown: number;
  /** Index in the whole conversation of the turn the search opens on (searchTarget), scrolled to when it changes; null for none. */
  searchMatch: number | null;
  answer: Turn | null;
  highlight: string;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const count = turns.length + (answer ? 1 : 0);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_TURN_PX,
    overscan: 4,
    getItemKey: (index) => (index < turns.length ? firstShown + index : 'answer'),
  });
  // Opened at the newest turn; when earlier turns are shown, the view stays on the turn it showed first.
  const shownFrom = useRef<number | null>(null);
  useLayoutEffect(() => {
    const previous = shownFrom.current;
    shownFrom.current = firstShown;
    if (previous === null) virtualizer.scrollToIndex(count - 1, { align: 'end' });
    else if (previous !== firstShown) virtualizer.scrollToIndex(previous - firstShown, { align: 'start' });
  }, [firstShown, count, virtualizer]);
  // After the scroll above: a search match is what the user came for, wherever it is in the turns and the detail.
  useLayoutEffect(() => {
    if (searchMatch === null) return;
    virtualizer.scrollToIndex(searchMatch - (shownFrom.current ?? 0), { align: 'start' });
    scrollRef.current?.scrollIntoView({ block: 'start' });
  }, [searchMatch, virtualizer]);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the turns scroll; keyboard users must be able to focus them to scroll them
    <div ref={scrollRef} className="conversation-scroll" tabIndex={0}>
      <ol className="conversation-turns" style={{ height: `${virtualizer.getTotalSize()}px` }}>
        {virtualizer.getVirtualItems().map((item) => {
          const turn = item.index < turns.length ? turns[item.index] : answer;
          return turn ? (
            <li
              key={item.key}
              ref={virtualizer.measureElement}
              data-index={item.index}
              className="conversation-slot"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              <TurnItem turn={turn} highlight={highlight} />
            </li>
          ) : null;
        })}
      </ol>
    </div>
  );
}

/**
 * The request's messages and the answer as a conversation; the raw bodies stay below it. The newest
 * turns show first, earlier ones when asked for or when the search matched only in them (it opens on
 * the match, see searchTarget); key it by the body, so another body opens at its end.
 */
export function ConversationView({ turns, answer, highlight }: { turns: Turn[]; answer: Turn | null; highlight: string }) {
  const [askedCount, setAskedCount] = useState(NEWEST_TURNS_SHOWN);
  const searchMatch = useMemo(() => searchTarget(turns, answer, highlight), [turns, answer, highlight]);
  const shownCount = shownCountFor(turns.length, askedCount, searchMatch);
  const { firstShown, collapsed, nextStep } = shownTurns(turns.length, shownCount);
  const shown = useMemo(() => turns.slice(firstShown), [turns, firstShown]);
  return (
    <section className="conversation" aria-labelledby="conversation-title">
      <h3 id="conversation-title">Conversation</h3>
      {collapsed > 0 && (
        <p className="conversation-collapsed">
          <span className="muted">{collapsedNote(collapsed, turns.length)}</span>{' '}
          <button type="button" onClick={() => setAskedCount(shownCount + nextStep)}>
            {showEarlierLabel(nextStep)}
          </button>
        </p>
      )}
      <TurnList turns={shown} firstShown={firstShown} searchMatch={searchMatch} answer={answer} highlight={highlight} />
    </section>
  );
}
