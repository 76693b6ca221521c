import { forwardRef, type KeyboardEvent, memo, useMemo } from 'react';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import { useApi } from '../api/ApiContext.tsx';
import { CopyButton } from '../common/CopyButton.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import type { FilterField } from '../live/filterForm.ts';
import type { LiveRow } from '../live/liveRows.ts';
import { BodyPanel } from './BodyPanel.tsx';
import { type FetchBody, sharedBodyFetch } from './bodyFetch.ts';
import { responseTurn, type Turn } from './conversation.ts';
import { ConversationView } from './ConversationView.tsx';
import { Highlighted } from './Highlighted.tsx';
import { buildCurl, buildSupportInfo } from './copyText.ts';
import { DetailOverview } from './DetailOverview.tsx';
import { ErrorExplanationView } from './ErrorExplanationView.tsx';
import { HeadersTable } from './HeadersTable.tsx';
import { ReplayLinks } from './ReplayLinks.tsx';
import { ReplayPanel } from './ReplayPanel.tsx';
import { useRequestDetail } from './useRequestDetail.ts';
import { useRequestTurns } from './useRequestTurns.ts';

interface RequestDetailPanelProps {
  requestId: string;
  /** The list's search text: its matches are marked in the bodies and the conversation. */
  highlight: string;
  /** Shows only the requests with one of this request's values (client, profile, model, status). */
  onFilter?: (field: FilterField, value: string) => void;
  liveRow: LiveRow | undefined;
  /** This request's replay while it runs, from the live channel: its text shows as it arrives. */
  runningReplay?: LiveRow | undefined;
  proxyUrl: string;
  onClose: () => void;
}

/** One request in full. While it is in flight, its text grows here from the live channel. */
export const RequestDetailPanel = forwardRef<HTMLElement, RequestDetailPanelProps>(function RequestDetailPanel(
  { requestId, highlight, onFilter, liveRow, runningReplay, proxyUrl, onClose },
  ref,
) {
  const api = useApi();
  const state = useRequestDetail(api, requestId, liveRow?.state);
  // The detail is keyed by its request: one fetch per body for all the views below.
  const fetchBody = useMemo(() => sharedBodyFetch(api, requestId), [api, requestId]);
  const inFlight = liveRow?.state === 'in_flight';

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    }
  };

  return (
    <section ref={ref} className="detail" tabIndex={-1} aria-label="Request detail" onKeyDown={onKeyDown}>
      <header className="detail-header">
        <h2>Request {inFlight ? '(in flight)' : ''}</h2>
        <button type="button" onClick={onClose} aria-label="Close detail (Escape)">
          Close
        </button>
      </header>
      {inFlight && (
        <section aria-label="Streaming text">
          <h3>Text so far</h3>
          <pre className="stream-text live" data-testid="live-text">
            {liveRow.text || '(waiting for the first token)'}
          </pre>
        </section>
      )}
      {state.kind === 'loading' && !inFlight && <Loading what="the request" />}
      {state.kind === 'error' && <ErrorState error={state.error} />}
      {state.kind === 'ready' && (
        <>
          {state.detail.explanation && <ErrorExplanationView explanation={state.detail.explanation} message={state.detail.errorMessage} />}
          <DetailActions detail={state.detail} proxyUrl={proxyUrl} />
          <ReplayLinks detail={state.detail} />
          <DetailOverview detail={state.detail} onFilter={onFilter} />
          {!inFlight && <ReplayPanel key={state.detail.id} detail={state.detail} fetchBody={fetchBody} running={runningReplay} />}
          {!inFlight && state.detail.streamText !== null && (
            <section aria-label="Stream text">
              <h3>Stream text</h3>
              <pre className="stream-text">
                <Highlighted text={state.detail.streamText || '(empty)'} needle={highlight} />
              </pre>
            </section>
          )}
          <Conversation detail={state.detail} fetchBody={fetchBody} highlight={highlight} liveText={inFlight ? liveRow.text : null} />
          <HeadersTable title="Request headers (masked)" headers={state.detail.requestHeaders} />
          <HeadersTable
            title="Response headers"
            headers={state.detail.responseHeaders}
            open={state.detail.errorClass !== null && Object.keys(state.detail.responseHeaders).length > 0}
          />
          <BodyPanel fetchBody={fetchBody} part="request" title="Request body" view={state.detail.requestBody} highlight={highlight} />
          <BodyPanel fetchBody={fetchBody} part="response" title="Response body" view={state.detail.responseBody} highlight={highlight} />
          {state.detail.stream && (
            <BodyPanel
              fetchBody={fetchBody}
              part="stream-events"
              title="Stream events"
              view={state.detail.streamEvents}
              eventOffsetsMs={state.detail.streamEventOffsetsMs}
              highlight={highlight}
            />
          )}
        </>
      )}
    </section>
  );
});

/** The request's turns and the answer, when the request body is a chat, Messages or Responses call logged in full. */
function Conversation({
  detail,
  fetchBody,
  highlight,
  liveText,
}: {
  detail: RequestDetail;
  fetchBody: FetchBody;
  highlight: string;
  liveText: string | null;
}) {
  const turns = useRequestTurns(detail.id, detail.clientPath, detail.requestBody, fetchBody);
  const responseText = detail.responseBody?.text;
  // Read once per body, not at each frame of the running request's stream.
  const loggedAnswer = useMemo(() => (responseText ? responseTurn(responseText) : null), [responseText]);
  if (turns.kind === 'none') return null;
  if (turns.kind !== 'ready')
    return (
      <section className="conversation" aria-labelledby="conversation-title">
        <h3 id="conversation-title">Conversation</h3>
        {turns.kind === 'loading' && <Loading what="the conversation" />}
        {turns.kind === 'error' && <ErrorState error={turns.error} />}
        {turns.kind === 'cut' && (
          <p className="muted">
            The request body was cut when logged, at the log's limit (Body kept per request, on the Connect screen), so its conversation
            cannot be read from it.
          </p>
        )}
      </section>
    );
  const answerText = liveText ?? detail.streamText;
  const answer: Turn | null =
    answerText !== null && answerText !== '' ? { role: 'assistant', parts: [{ kind: 'text', text: answerText }] } : loggedAnswer;
  return <ConversationView key={detail.id} turns={turns.turns} answer={answer} highlight={highlight} />;
}

/** What to copy for support or to send again; memoised, as the curl command quotes the whole body. */
const DetailActions = memo(function DetailActions({ detail, proxyUrl }: { detail: RequestDetail; proxyUrl: string }) {
  return (
    <div className="actions">
      <CopyButton text={buildSupportInfo(detail)} label="Copy support info" />
      <CopyButton
        text={buildCurl({
          proxyUrl,
          method: detail.method,
          clientPath: detail.clientPath,
          stream: detail.stream,
          body: detail.requestBody?.text ?? null,
          bodyTruncated: detail.requestBody?.truncated ?? false,
        })}
        label="Copy as curl"
      />
    </div>
  );
});
