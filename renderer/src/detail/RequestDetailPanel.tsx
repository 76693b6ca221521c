import { forwardRef, type KeyboardEvent } from 'react';
import { useApi } from '../api/ApiContext.tsx';
import { CopyButton } from '../common/CopyButton.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import type { LiveRow } from '../live/liveRows.ts';
import { BodyPanel } from './BodyPanel.tsx';
import { buildCurl, buildSupportInfo } from './copyText.ts';
import { DetailOverview } from './DetailOverview.tsx';
import { ErrorExplanationView } from './ErrorExplanationView.tsx';
import { HeadersTable } from './HeadersTable.tsx';
import { useRequestDetail } from './useRequestDetail.ts';

interface RequestDetailPanelProps {
  requestId: string;
  liveRow: LiveRow | undefined;
  proxyUrl: string;
  onClose: () => void;
}

/** One request in full. While it is in flight, its text grows here from the live channel. */
export const RequestDetailPanel = forwardRef<HTMLElement, RequestDetailPanelProps>(function RequestDetailPanel(
  { requestId, liveRow, proxyUrl, onClose },
  ref,
) {
  const api = useApi();
  const state = useRequestDetail(api, requestId, liveRow?.state);
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
          <div className="actions">
            <CopyButton text={buildSupportInfo(state.detail)} label="Copy support info" />
            <CopyButton
              text={buildCurl({
                proxyUrl,
                method: state.detail.method,
                clientPath: state.detail.clientPath,
                stream: state.detail.stream,
                body: state.detail.requestBody?.text ?? null,
                bodyTruncated: state.detail.requestBody?.truncated ?? false,
              })}
              label="Copy as curl"
            />
          </div>
          <DetailOverview detail={state.detail} />
          {!inFlight && state.detail.streamText !== null && (
            <section aria-label="Stream text">
              <h3>Stream text</h3>
              <pre className="stream-text">{state.detail.streamText || '(empty)'}</pre>
            </section>
          )}
          <HeadersTable title="Request headers (masked)" headers={state.detail.requestHeaders} />
          <HeadersTable title="Response headers" headers={state.detail.responseHeaders} />
          <BodyPanel requestId={requestId} part="request" title="Request body" view={state.detail.requestBody} />
          <BodyPanel requestId={requestId} part="response" title="Response body" view={state.detail.responseBody} />
          {state.detail.stream && (
            <BodyPanel requestId={requestId} part="stream-events" title="Raw stream events" view={state.detail.streamEvents} />
          )}
        </>
      )}
    </section>
  );
});
