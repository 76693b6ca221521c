import { useState } from 'react';
import type { BodyPart, BodyView } from '../../../proxy/contracts/api.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { prettyBody } from './copyText.ts';

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

type Loaded =
  | { kind: 'closed' }
  | { kind: 'loading' }
  | { kind: 'error'; error: Error }
  | { kind: 'ready'; text: string; truncated: boolean };

/** A body, rendered (and fetched, when large) only once the user opens it. */
export function BodyPanel({ requestId, part, title, view }: { requestId: string; part: BodyPart; title: string; view: BodyView | null }) {
  const api = useApi();
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'closed' });

  if (!view) return <p className="muted">{title}: none recorded.</p>;

  const open = () => {
    if (loaded.kind !== 'closed') return;
    if (view.text !== null) {
      setLoaded({ kind: 'ready', text: part === 'stream-events' ? view.text : prettyBody(view.text), truncated: view.truncated });
      return;
    }
    setLoaded({ kind: 'loading' });
    api.requestBody(requestId, part).then(
      (body) => setLoaded({ kind: 'ready', text: part === 'stream-events' ? body.text : prettyBody(body.text), truncated: body.truncated }),
      (error: Error) => setLoaded({ kind: 'error', error }),
    );
  };

  return (
    <details className="body-panel" onToggle={(event) => (event.currentTarget.open ? open() : undefined)}>
      <summary>
        {title}{' '}
        <span className="muted">
          ({formatBytes(view.sizeBytes)}
          {view.truncated ? ', truncated when logged' : ''})
        </span>
      </summary>
      {loaded.kind === 'loading' && <Loading what={title.toLowerCase()} />}
      {loaded.kind === 'error' && <ErrorState error={loaded.error} />}
      {loaded.kind === 'ready' && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a body scrolls; keyboard users must be able to focus it to scroll it
        <pre className="body-text" tabIndex={0}>
          {loaded.text}
          {loaded.truncated ? '\n… (truncated)' : ''}
        </pre>
      )}
    </details>
  );
}
