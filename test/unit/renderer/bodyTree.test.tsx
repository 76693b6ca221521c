// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BodyView } from '../../../proxy/contracts/requests.ts';
import { BodyPanel } from '../../../renderer/src/detail/BodyPanel.tsx';
import { type BodyReader, BodyReaderContext } from '../../../renderer/src/detail/bodyReader.ts';
import { readBodyTree } from '../../../renderer/src/detail/bodyTree.ts';
import { PAGE_ENTRIES, ShowMore, shownEntryAt, shownTree } from '../../../renderer/src/detail/treePages.ts';
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

  it('shows a long list a page at a time, and keeps what the user opened in it when more is shown', async () => {
    const reader: BodyReader = { turns: async () => null, tree: async (text) => readBodyTree(text) };
    render(panel(reader, ''));
    await openTree();
    const messageCount = body.toolCalls * 2 + 2;
    expect(messageCount).toBeGreaterThan(PAGE_ENTRIES);
    expect(messageCount).toBeLessThanOrEqual(2 * PAGE_ENTRIES);
    fireEvent.click(screen.getByText('messages:'));
    const shownMessages = () =>
      [...(treeNode('messages').querySelector('[role="group"]')?.children ?? [])].filter((entry) => !entry.querySelector('.json-more'));
    expect(shownMessages()).toHaveLength(PAGE_ENTRIES);
    // Opened by the user: the first message's content.
    const firstContent = [...shownMessages()[0]!.querySelectorAll('[role="treeitem"]')].find((item) =>
      item.textContent?.startsWith('content:'),
    )!;
    fireEvent.click(firstContent.querySelector('.json-key')!);
    expect(firstContent.getAttribute('aria-expanded')).toBe('true');
    // The rest is less than a page: one control shows it, from the keyboard as well.
    const showRest = await screen.findByRole('button', { name: `Show ${messageCount - PAGE_ENTRIES} more` });
    expect(screen.queryByRole('button', { name: /^Show all/ })).toBeNull();
    fireEvent.keyDown(showRest, { key: 'Enter' });
    await waitFor(() => expect(shownMessages()).toHaveLength(messageCount));
    expect(screen.queryByRole('button', { name: /^Show \d+ more/ })).toBeNull();
    // The keyboard goes on where the control was: the first entry it showed.
    expect(shownMessages()[PAGE_ENTRIES]?.contains(document.activeElement)).toBe(true);
    expect(firstContent.isConnected).toBe(true);
    expect(firstContent.getAttribute('aria-expanded')).toBe('true');
  });
});

describe("a tree's pages", () => {
  const entries = 2 * PAGE_ENTRIES + 50;
  const object = Object.fromEntries(Array.from({ length: entries }, (_, index) => [`key${index}`, { index }]));
  const list = Array.from({ length: entries }, (_, index) => index);

  it('cuts a long list or object to its first page, then a page more or all, as its controls say', () => {
    const firstPage = shownTree({ object, list }, new Map()) as { object: Record<string, unknown>; list: unknown[] };
    expect(firstPage.list.slice(0, PAGE_ENTRIES)).toEqual(list.slice(0, PAGE_ENTRIES));
    const listControls = firstPage.list.slice(PAGE_ENTRIES) as ShowMore[];
    expect(listControls.map((control) => [control.toISOString(), control.listPath, control.shownAfter])).toEqual([
      [`Show ${PAGE_ENTRIES} more (${(entries - PAGE_ENTRIES).toLocaleString()} not shown)`, '1', 2 * PAGE_ENTRIES],
      [`Show all ${entries.toLocaleString()}`, '1', entries],
    ]);
    const objectKeys = Object.keys(firstPage.object);
    expect(objectKeys.slice(0, PAGE_ENTRIES)).toEqual(Object.keys(object).slice(0, PAGE_ENTRIES));
    expect(objectKeys.slice(PAGE_ENTRIES).map((key) => (firstPage.object[key] as ShowMore).shownAfter)).toEqual([
      2 * PAGE_ENTRIES,
      entries,
    ]);
    // A control is found where the tree lists it: entry 1 of the body, then its entry after the page.
    expect(shownEntryAt(firstPage, [1, PAGE_ENTRIES + 1])).toBe(listControls[1]);

    const secondPage = shownTree({ object, list }, new Map([['0', 2 * PAGE_ENTRIES]])) as { object: Record<string, unknown> };
    const secondKeys = Object.keys(secondPage.object);
    expect(secondKeys.slice(0, 2 * PAGE_ENTRIES)).toEqual(Object.keys(object).slice(0, 2 * PAGE_ENTRIES));
    expect(secondKeys.slice(2 * PAGE_ENTRIES).map((key) => (secondPage.object[key] as ShowMore).toISOString())).toEqual(['Show 50 more']);
  });

  it("names an object's controls with keys the object does not have", () => {
    const taken = { ...object, '…': 'a key of its own' };
    const shown = shownTree(taken, new Map()) as Record<string, unknown>;
    expect(shown['…']).toBeUndefined();
    expect(Object.values(shown).filter((value) => value instanceof ShowMore)).toHaveLength(2);
  });
});
