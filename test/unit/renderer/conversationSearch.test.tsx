// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Turn } from '../../../renderer/src/detail/conversation.ts';
import { ConversationView } from '../../../renderer/src/detail/ConversationView.tsx';
import { NEWEST_TURNS_SHOWN } from '../../../renderer/src/detail/conversationWindow.ts';

/** How tall the conversation's view is: happy-dom lays nothing out, and a view of no height shows no turn. */
const VIEW_HEIGHT_PX = 800;
const TURN_COUNT = 61;

let scrolledIntoView: Element[] = [];
beforeEach(() => {
  scrolledIntoView = [];
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(VIEW_HEIGHT_PX);
  vi.spyOn(Element.prototype, 'scrollIntoView').mockImplementation(function (this: Element) {
    scrolledIntoView.push(this);
  });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/**
 * A long agent session: Claude Code's system prompt (long, holding the words a user searches for:
 * "error", "file", "test"), then user and assistant turns; `said` puts a word in the turns it names.
 */
function session(said: Record<number, string> = {}): Turn[] {
  const system: Turn = {
    role: 'system',
    parts: [{ kind: 'text', text: 'You are Claude Code, an interactive CLI tool. Read the file, fix the error, run the test.' }],
  };
  const turns = Array.from({ length: TURN_COUNT - 1 }, (_, offset): Turn => {
    const index = offset + 1;
    return { role: index % 2 === 1 ? 'user' : 'assistant', parts: [{ kind: 'text', text: `Turn ${index}. ${said[index] ?? ''}` }] };
  });
  return [system, ...turns];
}

const conversation = () => screen.getByRole('region', { name: 'Conversation' });
const collapsedNote = () => conversation().querySelector('.conversation-collapsed')?.textContent ?? '';

describe("a search in a conversation's turns", () => {
  it('leaves the newest turns as they are when one of them matches, though the system prompt matches too', () => {
    render(<ConversationView turns={session({ [TURN_COUNT - 3]: 'The test failed with an error.' })} answer={null} highlight="error" />);
    expect(collapsedNote()).toContain(`Showing the newest ${NEWEST_TURNS_SHOWN} of ${TURN_COUNT} turns`);
    expect(conversation().textContent).not.toContain('You are Claude Code');
  });

  it('neither shows every turn nor scrolls the detail for a word only the system prompt holds', () => {
    render(<ConversationView turns={session()} answer={null} highlight="interactive" />);
    expect(collapsedNote()).toContain(`Showing the newest ${NEWEST_TURNS_SHOWN} of ${TURN_COUNT} turns`);
    expect(scrolledIntoView).toEqual([]);
  });

  it('shows the collapsed turns down to the newest that matches, and opens on it', () => {
    const older = 5;
    const newer = 30;
    const said = { [older]: 'a parser error', [newer]: 'the same parser error again' };
    render(<ConversationView turns={session(said)} answer={null} highlight="parser error" />);
    expect(collapsedNote()).toContain(`Showing the newest ${TURN_COUNT - newer} of ${TURN_COUNT} turns; ${newer} earlier turns collapsed.`);
    // Where the view scrolls within the turns needs a layout: the e2e test (largeConversation.test.ts) reads it in Chromium.
    expect(scrolledIntoView).toEqual([conversation().querySelector('.conversation-scroll')]);
  });

  it('keeps the newest turns when the answer is what matches', () => {
    const answer: Turn = { role: 'assistant', parts: [{ kind: 'text', text: 'I fixed the error.' }] };
    render(<ConversationView turns={session({ 3: 'an error long ago' })} answer={answer} highlight="error" />);
    expect(collapsedNote()).toContain(`Showing the newest ${NEWEST_TURNS_SHOWN} of ${TURN_COUNT} turns`);
  });
});
