// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IN_FLIGHT_SUMMARY_DEFAULTS } from '../../../proxy/contracts/liveEvents.ts';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import type { ControlClient } from '../../../renderer/src/api/client.ts';
import { requestTurns } from '../../../renderer/src/detail/conversation.ts';
import { EARLIER_TURNS_STEP, NEWEST_TURNS_SHOWN, shownTurns } from '../../../renderer/src/detail/conversationWindow.ts';
import { RequestDetailPanel } from '../../../renderer/src/detail/RequestDetailPanel.tsx';
import { type BodyReader, BodyReaderContext } from '../../../renderer/src/detail/bodyReader.ts';
import { bodyReaderHere } from './bodyReaderHere.ts';
import { claudeCodeBody, toolName } from '../../support/claudeCodeBody.ts';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/** A Claude Code turn well past the 64 KB the detail sends inline (INLINE_BODY_LIMIT_BYTES). */
const LARGE_BODY_BYTES = 300_000;
const LAST_PROMPT = 'Now run the parser tests again';
/** How tall the conversation's view is: happy-dom lays nothing out, and a view of no height shows no turn. */
const VIEW_HEIGHT_PX = 800;

function detailWithBody(sizeBytes: number, text: string | null, truncated = false): RequestDetail {
  return {
    ...IN_FLIGHT_SUMMARY_DEFAULTS,
    id: 'alk_large',
    startedAtMs: Date.now(),
    state: 'done',
    clientName: 'claude-code',
    profileId: 'main',
    clientPath: '/v1/messages',
    requestedModel: 'claude-sonnet-4-5',
    stream: true,
    status: 200,
    upstreamPath: '/v1/chat/completions',
    upstreamRequestId: null,
    protocol: 'anthropic',
    protocolMode: 'translate',
    retries: 0,
    modelMismatch: false,
    upstreamModel: 'claude-sonnet-4-5',
    errorMessage: null,
    explanation: null,
    cachedInputTokens: null,
    reasoningTokens: null,
    gatewayCost: null,
    requestHeaders: { 'content-type': 'application/json' },
    responseHeaders: {},
    requestBody: { sizeBytes, truncated, contentType: 'application/json', text },
    responseBody: null,
    notes: [],
    streamText: 'I ran them: all pass.',
    streamEvents: null,
    streamEventOffsetsMs: null,
    replayIds: [],
  };
}

/** The detail of a request whose body is too large to come with it, as the Live screen shows it. */
function renderLargeDetail({ cutWhenLogged = false } = {}) {
  const body = claudeCodeBody(LARGE_BODY_BYTES, LAST_PROMPT);
  const bodyFetches: string[] = [];
  // The log keeps a body up to its capture limit (1 MiB by default); past it the body is cut, and no longer JSON.
  const logged = cutWhenLogged ? body.text.slice(0, body.text.length / 2) : body.text;
  const client = {
    request: async () => detailWithBody(Buffer.byteLength(body.text), null, cutWhenLogged),
    requestBody: async (id: string) => {
      bodyFetches.push(id);
      return { text: logged, truncated: cutWhenLogged };
    },
    // The replay editor's profile menu: none but the original's.
    profiles: async () => ({ profiles: [], activeProfileId: 'main', keychain: { available: true, message: null } }),
  } as unknown as ControlClient;
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(VIEW_HEIGHT_PX);
  render(
    <ApiProvider client={client}>
      <BodyReaderContext.Provider value={bodyReaderHere}>
        <RequestDetailPanel
          requestId="alk_large"
          highlight=""
          liveRow={undefined}
          proxyUrl="http://127.0.0.1:1"
          onClose={() => undefined}
        />
      </BodyReaderContext.Provider>
    </ApiProvider>,
  );
  return { body, bodyFetches };
}

describe('the conversation of a request body too large to come with its detail', () => {
  it('is fetched and shows its newest turns: the last user prompt and the tool calls before it', async () => {
    const { body, bodyFetches } = renderLargeDetail();
    await screen.findByText(LAST_PROMPT);
    const conversation = screen.getByRole('region', { name: 'Conversation' });
    expect(conversation.textContent).toContain(`calls ${toolName(body.toolCalls)}`);
    expect(conversation.textContent).toContain('I ran them: all pass.');
    expect(bodyFetches).toEqual(['alk_large']);
  });

  it('says why there is none when the log cut the body at its capture limit, without fetching it', async () => {
    const { bodyFetches } = renderLargeDetail({ cutWhenLogged: true });
    const conversation = await screen.findByRole('region', { name: 'Conversation' });
    expect(conversation.textContent).toContain('The request body was cut when logged');
    expect(conversation.textContent).toContain('Body kept per request');
    expect(bodyFetches).toEqual([]);
  });
});

describe("a large request body's views", () => {
  it('fetch it from the proxy once between them: the conversation, the body panel and the replay editor', async () => {
    const { body, bodyFetches } = renderLargeDetail();
    await screen.findByText(LAST_PROMPT);
    const panel = screen.getByText('Request body').closest('details') as HTMLDetailsElement;
    panel.open = true;
    fireEvent(panel, new Event('toggle'));
    await screen.findByRole('button', { name: 'Raw' });
    fireEvent.click(screen.getByRole('button', { name: 'Replay…' }));
    const editor = (await screen.findByLabelText('Request body (JSON)')) as HTMLTextAreaElement;
    await waitFor(() => expect(editor.value).toBe(body.text));
    expect(bodyFetches).toEqual(['alk_large']);
  });
});

describe('opening another request before a large body came', () => {
  it('does not read the first body, which nobody will see', async () => {
    const first = claudeCodeBody(LARGE_BODY_BYTES, 'first request');
    const second = claudeCodeBody(LARGE_BODY_BYTES, 'second request');
    const firstBody = Promise.withResolvers<{ text: string; truncated: boolean }>();
    const read: string[] = [];
    const readTurnsCounted: BodyReader = {
      ...bodyReaderHere,
      turns: async (bodyText) => {
        read.push(bodyText === first.text ? 'first' : 'second');
        return requestTurns(bodyText);
      },
    };
    const client = {
      request: async (id: string) => ({ ...detailWithBody(LARGE_BODY_BYTES, null), id }),
      requestBody: (id: string) => (id === 'first' ? firstBody.promise : Promise.resolve({ text: second.text, truncated: false })),
    } as unknown as ControlClient;
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(VIEW_HEIGHT_PX);
    const panel = (requestId: string) => (
      <ApiProvider client={client}>
        <BodyReaderContext.Provider value={readTurnsCounted}>
          <RequestDetailPanel
            requestId={requestId}
            highlight=""
            liveRow={undefined}
            proxyUrl="http://127.0.0.1:1"
            onClose={() => undefined}
          />
        </BodyReaderContext.Provider>
      </ApiProvider>
    );
    const { rerender } = render(panel('first'));
    await screen.findByText('Loading the conversation…');
    rerender(panel('second'));
    await screen.findByText('second request');
    firstBody.resolve({ text: first.text, truncated: false });
    await firstBody.promise;
    expect(read).toEqual(['second']);
  });
});

/** The turns a claudeCodeBody reads as: the system prompt, the task, a call and its result per tool call, the last prompt. */
const turnCountOf = (toolCalls: number): number => 2 + 2 * toolCalls + 1;

describe('which turns a conversation shows', () => {
  it('shows the newest, says how many earlier ones are collapsed, and shows earlier ones when asked', async () => {
    const { body } = renderLargeDetail();
    await screen.findByText(LAST_PROMPT);
    const turnCount = turnCountOf(body.toolCalls);
    const collapsed = turnCount - NEWEST_TURNS_SHOWN;
    const conversation = () => screen.getByRole('region', { name: 'Conversation' });
    expect(conversation().textContent).toContain(
      `Showing the newest ${NEWEST_TURNS_SHOWN} of ${turnCount} turns; ${collapsed} earlier turns collapsed.`,
    );
    const toolLabels = () => [...conversation().querySelectorAll('.tool-label')].map((label) => label.textContent);
    // The newest tool call shows; the oldest is collapsed.
    expect(toolLabels()).toContain(`calls ${toolName(body.toolCalls)}`);
    expect(toolLabels()).not.toContain(`calls ${toolName(1)}`);
    // Of the turns shown and the answer, only those in the view are in the DOM.
    const inDom = conversation().querySelectorAll('.turn').length;
    expect(inDom).toBeGreaterThan(0);
    expect(inDom).toBeLessThan(NEWEST_TURNS_SHOWN + 1);
    fireEvent.click(screen.getByRole('button', { name: `Show ${EARLIER_TURNS_STEP} earlier turns` }));
    expect(conversation().textContent).toContain(
      `Showing the newest ${NEWEST_TURNS_SHOWN + EARLIER_TURNS_STEP} of ${turnCount} turns; ${collapsed - EARLIER_TURNS_STEP} earlier turns collapsed.`,
    );
    // happy-dom measures no turn's height, so how few is for the e2e test to say; fewer than shown, still.
    expect(conversation().querySelectorAll('.turn').length).toBeLessThan(NEWEST_TURNS_SHOWN + EARLIER_TURNS_STEP + 1);
  });

  it('cuts a long tool result and says how much of it is in the body', async () => {
    renderLargeDetail();
    await screen.findByText(LAST_PROMPT);
    // Each tool result holds a 3,000-character file: under the cut, so none is cut here.
    expect(screen.getByRole('region', { name: 'Conversation' }).textContent).not.toContain('more characters');
    cleanup();
    const longResult = 'x'.repeat(10_000);
    const turns = requestTurns(
      JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: longResult }] }] }),
    );
    const part = turns?.[0]?.parts[0];
    expect(part?.kind === 'tool_result' && part.text.length + (part.omittedChars ?? 0)).toBe(longResult.length);
    expect(part?.kind === 'tool_result' && part.omittedChars).toBeGreaterThan(0);
  });

  it.each([
    [5, NEWEST_TURNS_SHOWN, { firstShown: 0, collapsed: 0, nextStep: 0 }],
    [100, NEWEST_TURNS_SHOWN, { firstShown: 100 - NEWEST_TURNS_SHOWN, collapsed: 100 - NEWEST_TURNS_SHOWN, nextStep: EARLIER_TURNS_STEP }],
    [100, NEWEST_TURNS_SHOWN + EARLIER_TURNS_STEP, { firstShown: 30, collapsed: 30, nextStep: 30 }],
  ])('of %i turns, with %i asked for, shows from the right one', (turnCount, shownCount, expected) => {
    expect(shownTurns(turnCount, shownCount)).toEqual(expected);
  });
});
