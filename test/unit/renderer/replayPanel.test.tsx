// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProfileListResponse, ProfileView } from '../../../proxy/contracts/profileViews.ts';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import { IN_FLIGHT_SUMMARY_DEFAULTS } from '../../../proxy/contracts/liveEvents.ts';
import type { ReplayResponse } from '../../../proxy/contracts/replay.ts';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import { ControlApiError, type ControlClient } from '../../../renderer/src/api/client.ts';
import { sharedBodyFetch } from '../../../renderer/src/detail/bodyFetch.ts';
import type { LiveRow } from '../../../renderer/src/live/liveRows.ts';
import { ReplayPanel } from '../../../renderer/src/detail/ReplayPanel.tsx';
import { fakeClient } from './fakeClient.ts';

afterEach(cleanup);

const BODY = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Name a planet."}]}';

const detail: RequestDetail = {
  ...IN_FLIGHT_SUMMARY_DEFAULTS,
  notes: [],
  id: 'alk_1',
  startedAtMs: 0,
  state: 'done',
  clientName: 'agent',
  profileId: 'main',
  clientPath: '/v1/chat/completions',
  upstreamPath: '/v1/chat/completions',
  upstreamRequestId: null,
  protocol: 'openai',
  protocolMode: 'native',
  retries: 0,
  modelMismatch: false,
  upstreamModel: 'gpt-4o-mini',
  errorMessage: null,
  explanation: null,
  cachedInputTokens: null,
  reasoningTokens: null,
  gatewayCost: null,
  requestHeaders: {},
  responseHeaders: {},
  requestBody: { sizeBytes: BODY.length, truncated: false, contentType: 'application/json', text: BODY },
  responseBody: null,
  streamText: null,
  streamEvents: null,
  streamEventOffsetsMs: null,
  replayIds: [],
};

const profile = (id: string, name: string) => ({ profile: { id, name } }) as unknown as ProfileView;
const profiles: ProfileListResponse = {
  profiles: [profile('main', 'Main'), profile('spare', 'Spare')],
  activeProfileId: 'main',
  keychain: { available: true, message: null },
};

const side = (id: string, answerText: string) => ({
  id,
  status: 200,
  errorClass: null,
  errorMessage: null,
  model: 'gpt-4o-mini',
  inputTokens: 4,
  outputTokens: 9,
  usageEstimated: false,
  costCredits: null,
  durationMs: 20,
  answerText,
});

const answer: ReplayResponse = {
  replayOf: 'alk_1',
  replayId: 'alk_2',
  profileId: 'spare',
  edited: true,
  original: side('alk_1', 'Mars'),
  replay: side('alk_2', 'Io and Europa'),
  difference: {
    statusChanged: false,
    inputTokens: 0,
    outputTokens: 0,
    costCredits: null,
    durationMs: 0,
    answerChanged: true,
    answerDiff: null,
  },
};

async function openEditor(client: ControlClient, shown: RequestDetail = detail) {
  render(
    <ApiProvider client={client}>
      <ReplayPanel detail={shown} fetchBody={sharedBodyFetch(client, shown.id)} />
    </ApiProvider>,
  );
  fireEvent.click(screen.getByRole('button', { name: 'Replay…' }));
  const editor = (await screen.findByLabelText('Request body (JSON)')) as HTMLTextAreaElement;
  await waitFor(() => expect(editor.value).toBe(shown.requestBody?.text));
  return editor;
}

describe('ReplayPanel', () => {
  it('checks the edit as JSON before sending, then sends it through the chosen profile and shows both answers', async () => {
    const replay = vi.fn(async () => answer);
    const editor = await openEditor(fakeClient({ profiles: async () => profiles, replay }));

    fireEvent.change(editor, { target: { value: '{"model":' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send replay' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/not valid JSON/);
    expect(replay).not.toHaveBeenCalled();

    const edited = BODY.replace('Name a planet.', 'Name two moons.');
    fireEvent.change(editor, { target: { value: edited } });
    fireEvent.change(await screen.findByLabelText('Profile'), { target: { value: 'spare' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send replay' }));
    await screen.findByTestId('replay-comparison');
    expect(replay).toHaveBeenCalledWith('alk_1', { body: edited, profileId: 'spare' });
    expect(screen.getByTestId('replay-original-answer').textContent).toBe('Mars');
    expect(screen.getByTestId('replay-new-answer').textContent).toBe('Io and Europa');
  });

  it('sends no body when it was not changed, and asks for an idempotency key when the proxy wants one', async () => {
    const replay = vi
      .fn<ControlClient['replay']>()
      .mockRejectedValueOnce(new ControlApiError(409, 'conflict', 'This is an image or video creation: give it a key.', 'idempotencyKey'))
      .mockResolvedValueOnce(answer);
    await openEditor(fakeClient({ profiles: async () => profiles, replay }));
    fireEvent.click(screen.getByRole('button', { name: 'Send replay' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/give it a key/);
    expect(replay).toHaveBeenLastCalledWith('alk_1', {});

    fireEvent.change(screen.getByLabelText('Idempotency key for this replay'), { target: { value: 'k-1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send replay' }));
    await screen.findByTestId('replay-comparison');
    expect(replay).toHaveBeenLastCalledWith('alk_1', { idempotencyKey: 'k-1' });
  });

  it('leaves the editor alone while the replay streams: each delta renders the answer so far, not the body being edited', async () => {
    const replay = Promise.withResolvers<ReplayResponse>();
    const client = fakeClient({ profiles: async () => profiles, replay: () => replay.promise });
    const panel = (running?: LiveRow) => (
      <ApiProvider client={client}>
        <ReplayPanel detail={detail} fetchBody={sharedBodyFetch(client, detail.id)} running={running} />
      </ApiProvider>
    );
    const { rerender } = render(panel());
    fireEvent.click(screen.getByRole('button', { name: 'Replay…' }));
    const editor = (await screen.findByLabelText('Request body (JSON)')) as HTMLTextAreaElement;
    await waitFor(() => expect(editor.value).toBe(BODY));
    fireEvent.click(screen.getByRole('button', { name: 'Send replay' }));
    await screen.findByRole('button', { name: 'Replaying…' });
    // React reads a controlled textarea's value each time it renders it: for a body of megabytes, a copy of it a frame.
    const editorReads = vi.spyOn(editor, 'value', 'get');
    const running: LiveRow = { ...detail, id: 'alk_2', state: 'in_flight', replayOf: detail.id, text: '' };
    const frames = ['Io', ' and', ' Europa'];
    for (let frame = 1; frame <= frames.length; frame += 1) rerender(panel({ ...running, text: frames.slice(0, frame).join('') }));
    expect(screen.getByTestId('replay-live-text').textContent).toBe('Io and Europa');
    expect(editorReads).not.toHaveBeenCalled();
    replay.resolve(answer);
    await screen.findByTestId('replay-comparison');
  });

  it('leaves a body the log cut unchanged to the proxy, which says why it is refused, instead of sending the cut text as an edit', async () => {
    const cut = BODY.slice(0, 30);
    const truncated: RequestDetail = {
      ...detail,
      requestBody: { sizeBytes: cut.length, truncated: true, contentType: 'application/json', text: cut },
    };
    const refusal = "The log kept only the first part of this request's body. Paste the whole body.";
    const replay = vi.fn<ControlClient['replay']>().mockRejectedValueOnce(new ControlApiError(409, 'conflict', refusal, 'body'));
    await openEditor(fakeClient({ profiles: async () => profiles, replay }), truncated);
    fireEvent.click(screen.getByRole('button', { name: 'Send replay' }));
    expect((await screen.findByRole('alert')).textContent).toBe(refusal);
    expect(replay).toHaveBeenLastCalledWith('alk_1', {});
  });
});
