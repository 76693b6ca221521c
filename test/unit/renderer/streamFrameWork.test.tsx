// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IN_FLIGHT_SUMMARY_DEFAULTS } from '../../../proxy/contracts/liveEvents.ts';
import type { RequestFacets } from '../../../proxy/contracts/requestFacets.ts';
import type { BodyView, RequestDetail, RequestSummary } from '../../../proxy/contracts/requests.ts';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import type { ControlClient } from '../../../renderer/src/api/client.ts';
import { LiveScreen } from '../../../renderer/src/live/LiveScreen.tsx';
import { LIVE_ROWS_KEPT, LiveStore } from '../../../renderer/src/live/liveStore.ts';
import { BodyReaderContext } from '../../../renderer/src/detail/bodyReader.ts';
import { bodyReaderHere } from './bodyReaderHere.ts';
import { countRenderWork } from '../../support/renderWork.ts';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  window.location.hash = '';
});

/** How tall the list's view is: happy-dom lays nothing out, and a view of no height shows no row. */
const VIEW_HEIGHT_PX = 800;

/** Painted frames of one stream a test sends: enough that per-frame work shows many times over. */
const STREAM_FRAMES = 10;
/** The detail sends a body with itself up to 64 KB (INLINE_BODY_LIMIT_BYTES); past it, the body is fetched when opened. */
const INLINE_BODY_BYTES = 60_000;
const LARGE_BODY_BYTES = 100_000;

const summary = (id: string, startedAtMs: number, running: boolean): RequestSummary => ({
  ...IN_FLIGHT_SUMMARY_DEFAULTS,
  id,
  startedAtMs,
  state: running ? 'in_flight' : 'done',
  clientName: 'claude-code',
  profileId: 'main',
  clientPath: '/v1/messages',
  requestedModel: 'claude-sonnet',
  stream: true,
  status: 200,
});

/** A Claude Code turn's body: the system prompt and a long history of messages, at most `bytes` long. */
function agentBody(bytes: number): string {
  const messages: { role: string; content: string }[] = [];
  const bodyOf = () => JSON.stringify({ model: 'claude-sonnet', system: 'You are Claude Code.', stream: true, messages });
  for (let turn = 0; ; turn += 1) {
    messages.push({ role: turn % 2 === 0 ? 'user' : 'assistant', content: `turn ${turn}: ${'read the file and edit it. '.repeat(20)}` });
    if (bodyOf().length > bytes) break;
  }
  messages.pop();
  return bodyOf();
}

function detailOf(row: RequestSummary, body: string): RequestDetail {
  const requestBody: BodyView = {
    sizeBytes: body.length,
    truncated: false,
    contentType: 'application/json',
    text: body.length <= INLINE_BODY_BYTES ? body : null,
  };
  return {
    ...row,
    upstreamPath: '/v1/chat/completions',
    upstreamRequestId: null,
    protocol: 'anthropic',
    protocolMode: 'translate',
    retries: 0,
    modelMismatch: false,
    upstreamModel: 'claude-sonnet',
    errorMessage: null,
    explanation: null,
    cachedInputTokens: null,
    reasoningTokens: null,
    gatewayCost: null,
    requestHeaders: { 'content-type': 'application/json' },
    responseHeaders: {},
    requestBody,
    responseBody: null,
    notes: [],
    streamText: null,
    streamEvents: null,
    streamEventOffsetsMs: null,
    replayIds: [],
  };
}

/** The Live screen over a log of `rowCount` requests, the newest (`running`) still streaming and selected when `select`. */
async function liveScreenWithStream({
  rowCount,
  body = '',
  select,
  refusals = 0,
  facets,
}: {
  rowCount: number;
  body?: string;
  select: boolean;
  /** The oldest this many rows are identical refusals (a paused client retrying): the list shows them as one line. */
  refusals?: number;
  /** What the filter menus list; without, they stay loading. */
  facets?: RequestFacets;
}) {
  // Today, as an agent's requests are: the list writes today's as a time of day.
  const startedAtMs = Date.now();
  const rows = Array.from({ length: rowCount }, (_, index) =>
    summary(index === 0 ? 'running' : `done${index}`, startedAtMs - index * 1_000, index === 0),
  );
  for (const row of rows.slice(rowCount - refusals)) Object.assign(row, { status: 403, errorClass: 'client_paused' });
  const client = {
    listRequests: async () => ({ items: rows, nextCursor: null }),
    requestFacets: () => (facets ? Promise.resolve(facets) : new Promise(() => undefined)),
    request: async () => detailOf(rows[0] as RequestSummary, body),
    requestBody: async () => ({ text: body, truncated: false }),
  } as unknown as ControlClient;
  window.location.hash = select ? '#/live/running' : '#/live';
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(VIEW_HEIGHT_PX);
  const store = new LiveStore();
  render(
    <ApiProvider client={client}>
      <BodyReaderContext.Provider value={bodyReaderHere}>
        <LiveScreen store={store} proxyUrl="http://127.0.0.1:1" firstRun={null} />
      </BodyReaderContext.Provider>
    </ApiProvider>,
  );
  await screen.findByText(`${rowCount.toLocaleString()} requests`);
  const search = async (text: string) => {
    fireEvent.change(screen.getByRole('searchbox'), { target: { value: text } });
    // The list searches once the typing settles; the detail then marks the matches.
    await waitFor(() => expect(document.querySelector('.conversation mark')).not.toBeNull());
  };
  const streamFrames = (frames: number) =>
    countRenderWork(() => {
      for (let frame = 0; frame < frames; frame += 1)
        act(() => {
          store.applyFrame({ requests: [{ requestId: 'running', fields: {}, appendText: `token${frame} ` }], status: null });
          store.publish();
        });
    }, store.getSnapshot().rows);
  return { streamFrames, search };
}

/** Opens a body panel as a click on its summary does. */
async function openBody(title: string): Promise<void> {
  const panel = screen.getByText(title).closest('details') as HTMLDetailsElement;
  panel.open = true;
  fireEvent(panel, new Event('toggle'));
  await screen.findByRole('button', { name: 'Raw' });
}

describe('the detail of a running request, while its stream paints', () => {
  it.each([
    ['sent with the detail (its conversation shown)', INLINE_BODY_BYTES],
    ['fetched when opened', LARGE_BODY_BYTES],
  ])('parses a request body %s once, not once a frame', async (_name, bodyBytes) => {
    const body = agentBody(bodyBytes);
    const { streamFrames } = await liveScreenWithStream({ rowCount: 5, body, select: true });
    await openBody('Request body');
    // Either body shows as the conversation too, which reads it as well: sent with the detail, or fetched and read apart.
    await waitFor(() => expect(document.querySelector('.conversation .turn')).not.toBeNull());
    const work = streamFrames(STREAM_FRAMES);
    expect(screen.getByTestId('live-text').textContent).toContain(`token${STREAM_FRAMES - 1}`);
    // Parsed before the stream's frames, none of them parses it again.
    expect(work.jsonCharsParsed).toBeLessThan(body.length);
  });

  it('renders again only what the stream changed: no search marks redone over the body, no times rewritten', async () => {
    const body = agentBody(INLINE_BODY_BYTES);
    const listAlone = await liveScreenWithStream({ rowCount: 5, select: false });
    const withListAlone = listAlone.streamFrames(STREAM_FRAMES);
    cleanup();
    const withDetail = await liveScreenWithStream({ rowCount: 5, body, select: true });
    await withDetail.search('edit');
    await openBody('Request body');
    const work = withDetail.streamFrames(STREAM_FRAMES);
    // Marking a search lowercases the text searched: the answer's text so far, never again the body.
    expect(work.charsLowercased).toBeLessThan(body.length);
    expect(work.timesFormatted).toBe(withListAlone.timesFormatted);
  });
});

describe('the Live list, while a stream paints', () => {
  it('renders again only the row whose text grew, however many rows it shows', async () => {
    const fewRows = await liveScreenWithStream({ rowCount: 2, select: false });
    const withFewRows = fewRows.streamFrames(STREAM_FRAMES);
    cleanup();
    const manyRows = await liveScreenWithStream({ rowCount: 40, select: false, refusals: 5 });
    expect(document.querySelectorAll('[role="option"]').length).toBeGreaterThan(2);
    expect(screen.getByText('5 ×')).toBeTruthy();
    const withManyRows = manyRows.streamFrames(STREAM_FRAMES);
    // The streaming row writes its time at each frame; the rows that did not change write nothing.
    expect(withFewRows.timesFormatted).toBeGreaterThan(0);
    expect(withManyRows.timesFormatted).toBe(withFewRows.timesFormatted);
  });

  it("does not group its lines again when only a stream's text grew", async () => {
    const shortList = await liveScreenWithStream({ rowCount: 40, select: false, refusals: 5 });
    const withShortList = shortList.streamFrames(STREAM_FRAMES);
    cleanup();
    const longList = await liveScreenWithStream({ rowCount: LIVE_ROWS_KEPT, select: false, refusals: 5 });
    const withLongList = longList.streamFrames(STREAM_FRAMES);
    // The rows in view are read to render them, the same in both; the rest of the list is not read at all.
    expect(withShortList.rowLookups).toBeGreaterThan(0);
    expect(withLongList.rowLookups).toBe(withShortList.rowLookups);
  });

  it("does not measure its lines again when only a stream's text grew", async () => {
    const shortList = await liveScreenWithStream({ rowCount: 40, select: false });
    const withShortList = shortList.streamFrames(STREAM_FRAMES);
    cleanup();
    const longList = await liveScreenWithStream({ rowCount: LIVE_ROWS_KEPT, select: false });
    const withLongList = longList.streamFrames(STREAM_FRAMES);
    // Rendering the one row that changed looks up as much in a list of 1,000 as in one of 40.
    expect(withLongList.otherMapLookups).toBe(withShortList.otherMapLookups);
  });

  it('leaves the filter menus as they are', async () => {
    const values = (dimension: string, count: number) =>
      Array.from({ length: count }, (_, index) => ({ value: `${dimension}${index}`, label: `${dimension} ${index}`, count: index + 1 }));
    const menus = (count: number): RequestFacets => ({
      status: values('status', count),
      errorClass: values('error', count),
      model: values('model', count),
      client: values('client', count),
      profile: values('profile', count),
      endpoint: values('/v1/path', count),
    });
    const fewValues = await liveScreenWithStream({ rowCount: 5, select: false, facets: menus(1) });
    await screen.findByRole('navigation', { name: 'Facets' });
    const withFewValues = fewValues.streamFrames(STREAM_FRAMES);
    cleanup();
    const manyValues = await liveScreenWithStream({ rowCount: 5, select: false, facets: menus(30) });
    await screen.findByRole('navigation', { name: 'Facets' });
    const withManyValues = manyValues.streamFrames(STREAM_FRAMES);
    // Each value's count is written once, when the menus load, not again at each frame.
    expect(withManyValues.numbersFormatted).toBe(withFewValues.numbersFormatted);
  });
});
