// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BodyView } from '../../../proxy/contracts/requests.ts';
import { BodyPanel } from '../../../renderer/src/detail/BodyPanel.tsx';
import { type BodyReader, BodyReaderContext } from '../../../renderer/src/detail/bodyReader.ts';
import { readBodyTree } from '../../../renderer/src/detail/bodyTree.ts';
import { claudeCodeBody } from '../../support/claudeCodeBody.ts';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/** A Claude Code turn far past the 64 KB the detail sends with itself: its body is fetched when opened. */
const body = claudeCodeBody(300_000, 'Now run the parser tests again');
const view: BodyView = { sizeBytes: body.text.length, truncated: false, contentType: 'application/json', text: null };

/** The body panel of that request, its body read by `reader`; `highlight` is the list's search. */
function panel(reader: BodyReader, highlight: string) {
  return (
    <BodyReaderContext.Provider value={reader}>
      <BodyPanel
        fetchBody={async () => ({ text: body.text, truncated: false })}
        part="request"
        title="Request body"
        view={view}
        highlight={highlight}
      />
    </BodyReaderContext.Provider>
  );
}

async function openTree(): Promise<void> {
  const details = screen.getByText('Request body').closest('details') as HTMLDetailsElement;
  details.open = true;
  fireEvent(details, new Event('toggle'));
  await screen.findByRole('button', { name: 'Tree' });
}

/** The tree's node for a field of the body, as its label reads. */
const treeNode = (field: string): HTMLElement => screen.getByText(`${field}:`).closest('[role="treeitem"]') as HTMLElement;

describe("a large body's tree", () => {
  it("is read by the body reader, off the window's main thread, not parsed there", async () => {
    // Read before the count starts, as the worker would: what the count sees is the main thread's.
    const tree = readBodyTree(body.text);
    const treeReads: number[] = [];
    const reader: BodyReader = {
      turns: async () => null,
      tree: async (text) => {
        treeReads.push(text.length);
        return tree;
      },
    };
    const parse = vi.spyOn(JSON, 'parse');
    render(panel(reader, ''));
    await openTree();
    expect(treeNode('messages')).toBeTruthy();
    expect(parse.mock.calls.filter(([text]) => text === body.text)).toEqual([]);
    expect(treeReads).toEqual([body.text.length]);
  });

  it('opens no list too long to render at once, and keeps what the user opened when the search changes', async () => {
    const reader: BodyReader = { turns: async () => null, tree: async (text) => readBodyTree(text) };
    const { rerender } = render(panel(reader, ''));
    await openTree();
    // The history is hundreds of messages: closed until asked for.
    expect(body.toolCalls * 2).toBeGreaterThan(100);
    expect(treeNode('messages').getAttribute('aria-expanded')).toBe('false');
    expect(treeNode('model').textContent).toContain('claude-sonnet-4-5');
    fireEvent.click(screen.getByText('messages:'));
    expect(treeNode('messages').getAttribute('aria-expanded')).toBe('true');
    rerender(panel(reader, 'parser'));
    expect(screen.getByText(/matches? for “parser”/)).toBeTruthy();
    expect(treeNode('messages').getAttribute('aria-expanded')).toBe('true');
  });
});
