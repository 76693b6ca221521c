import type { ConversationItem, TurnChange } from '../../contracts/agentSessions.ts';

/** An earlier turn's request as items, and its place in the session. */
export interface EarlierTurn {
  index: number;
  items: ConversationItem[] | null;
}

/** Each list's items as comparable strings, made once: a turn is compared with several earlier ones, and they with later ones. */
const itemKeys = new WeakMap<readonly ConversationItem[], string[]>();
function keysOf(items: readonly ConversationItem[]): string[] {
  let keys = itemKeys.get(items);
  if (keys === undefined) {
    keys = items.map((item) => JSON.stringify(item));
    itemKeys.set(items, keys);
  }
  return keys;
}

function commonPrefixLength(earlier: readonly ConversationItem[], current: readonly ConversationItem[]): number {
  const [earlierKeys, currentKeys] = [keysOf(earlier), keysOf(current)];
  const limit = Math.min(earlierKeys.length, currentKeys.length);
  let length = 0;
  while (length < limit && earlierKeys[length] === currentKeys[length]) length += 1;
  return length;
}

/** The model's own output sent back to it: what a client repeats of the previous answer. */
const isAnswerEcho = (item: ConversationItem): boolean =>
  item.kind === 'assistant' || item.kind === 'tool_call' || item.kind === 'reasoning';

const unknown = (reason: string): TurnChange => ({
  kind: 'unknown',
  sinceTurn: null,
  keptItems: 0,
  droppedItems: 0,
  echoedAnswerItems: 0,
  added: [],
  reason,
});

/**
 * What a request adds to the conversation against the earlier turns given (the few before it,
 * oldest first). The baseline is the earlier request sharing the longest opening with this one,
 * the latest on a tie; its whole history kept means `appended`, part of it `rewritten`. Of the new
 * items, the leading run of the model's own output (its previous answer, sent back) is counted,
 * not listed: what is listed is what the client brought.
 */
export function turnChange(
  earlier: readonly EarlierTurn[],
  current: ConversationItem[] | null,
  currentReason = 'no readable request body',
): TurnChange {
  if (current === null) return unknown(currentReason);
  const readable = earlier.filter((turn): turn is EarlierTurn & { items: ConversationItem[] } => turn.items !== null);
  if (earlier.length === 0) return { kind: 'first', sinceTurn: null, keptItems: 0, droppedItems: 0, echoedAnswerItems: 0, added: current };
  if (readable.length === 0) return unknown('the turn before has no readable request body');
  let best = { turn: readable[0] as EarlierTurn & { items: ConversationItem[] }, kept: -1 };
  for (const turn of readable) {
    const kept = commonPrefixLength(turn.items, current);
    if (kept >= best.kept) best = { turn, kept };
  }
  const fresh = current.slice(best.kept);
  let echoed = 0;
  while (echoed < fresh.length && isAnswerEcho(fresh[echoed] as ConversationItem)) echoed += 1;
  const dropped = best.turn.items.length - best.kept;
  return {
    kind: dropped === 0 ? 'appended' : 'rewritten',
    sinceTurn: best.turn.index,
    keptItems: best.kept,
    droppedItems: dropped,
    echoedAnswerItems: echoed,
    added: fresh.slice(echoed),
  };
}
