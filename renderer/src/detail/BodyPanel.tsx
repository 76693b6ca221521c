import { memo, useContext, useEffect, useMemo, useState } from 'react';
import type { BodyPart, BodyView } from '../../../proxy/contracts/requests.ts';
import { CopyButton } from '../common/CopyButton.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import type { FetchBody } from './bodyFetch.ts';
import { BodyReaderContext } from './bodyReader.ts';
import { type BodyTree, readBodyTree } from './bodyTree.ts';
import { Highlighted, matchRanges } from './Highlighted.tsx';
import { JsonTree } from './JsonTree.tsx';
import { StreamEventsTable } from './StreamEventsTable.tsx';

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

type Mode = 'structured' | 'raw';

type TreeState = { kind: 'reading' } | { kind: 'error'; error: Error } | { kind: 'ready'; tree: BodyTree };

const READING: TreeState = { kind: 'reading' };

/**
 * A body up to this long is read on the main thread, at once (the detail sends one up to 64 KB with
 * itself); a longer one in the body worker, as parsing and writing out megabytes would stall the window.
 */
const READ_HERE_MAX_CHARS = 64 * 1024;

/** A body's tree and pretty text: read here when small, in the body worker when large. */
function useBodyTree(part: BodyPart, text: string): TreeState {
  const reader = useContext(BodyReaderContext);
  const readHere = part === 'stream-events' || text.length <= READ_HERE_MAX_CHARS;
  // Read once per body: the detail renders again at each frame of a running request's stream.
  const readNow = useMemo(
    () => (!readHere ? null : part === 'stream-events' ? { json: null, pretty: text, notJson: false } : readBodyTree(text)),
    [readHere, part, text],
  );
  const [read, setRead] = useState<{ text: string; state: TreeState } | null>(null);
  useEffect(() => {
    if (readHere) return;
    let current = true;
    reader.tree(text).then(
      (tree) => current && setRead({ text, state: { kind: 'ready', tree } }),
      (error: Error) => current && setRead({ text, state: { kind: 'error', error } }),
    );
    return () => {
      current = false;
    };
  }, [reader, readHere, text]);
  if (readNow) return { kind: 'ready', tree: readNow };
  return read?.text === text ? read.state : READING;
}

interface BodyContentProps {
  part: BodyPart;
  text: string;
  truncated: boolean;
  eventOffsetsMs: number[] | null;
  highlight: string;
  /** As the log recorded it: a body declared JSON that does not parse is said to be no JSON. */
  contentType: string | null;
}

const JSON_TYPE = /[/+]json\b/i;

/** A body that was meant as JSON (declared so, or starting as an object or array) and is not: a form or a file is not marked. */
function meantAsJson(text: string, contentType: string | null): boolean {
  return (contentType !== null && JSON_TYPE.test(contentType)) || /^\s*[[{]/.test(text);
}

function BodyContent(props: BodyContentProps) {
  const read = useBodyTree(props.part, props.text);
  if (read.kind === 'reading') return <Loading what="the body" />;
  if (read.kind === 'error') return <ErrorState error={read.error} />;
  return <BodyViews {...props} tree={read.tree} />;
}

function BodyViews({ part, text, truncated, eventOffsetsMs, highlight, contentType, tree }: BodyContentProps & { tree: BodyTree }) {
  const { json, pretty: raw } = tree;
  const matches = matchRanges(text, highlight).length;
  const structured = part === 'stream-events' || json !== null;
  // A search match is shown where it is: in the raw text, marked.
  const [mode, setMode] = useState<Mode>(structured && matches === 0 ? 'structured' : 'raw');
  return (
    <div className="body-content">
      <div className="body-toolbar">
        {structured && (
          // biome-ignore lint/a11y/useSemanticElements: two toggle buttons, not a form: a fieldset would add a form group and its legend
          <div role="group" aria-label="View" className="segmented">
            <button type="button" aria-pressed={mode === 'structured'} onClick={() => setMode('structured')}>
              {part === 'stream-events' ? 'Events' : 'Tree'}
            </button>
            <button type="button" aria-pressed={mode === 'raw'} onClick={() => setMode('raw')}>
              Raw
            </button>
          </div>
        )}
        <CopyButton text={raw} label="Copy body" compact />
        {tree.notJson && meantAsJson(text, contentType) && (
          <span className="body-note">
            {truncated ? 'Not whole JSON (cut when logged): shown as the text recorded' : 'Not valid JSON: shown as the text recorded'}
          </span>
        )}
        {matches > 0 && (
          <span className="match-count">
            {matches} {matches === 1 ? 'match' : 'matches'} for “{highlight.trim()}”
          </span>
        )}
      </div>
      {mode === 'structured' && part === 'stream-events' && (
        <StreamEventsTable raw={text} offsetsMs={eventOffsetsMs} highlight={highlight} />
      )}
      {mode === 'structured' && json !== null && <JsonTree json={json} highlight={highlight} />}
      {mode === 'raw' && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a body scrolls; keyboard users must be able to focus it to scroll it
        <pre className="body-text" tabIndex={0}>
          <Highlighted text={raw} needle={highlight} />
          {truncated ? '\n… (truncated)' : ''}
        </pre>
      )}
    </div>
  );
}

/**
 * A body, rendered (and fetched, when large) only once the user opens it, or at once when the search matched in it.
 * Memoised: a running request's detail renders again at each stream frame, and a search is marked over the whole body.
 */
export const BodyPanel = memo(function BodyPanel({
  fetchBody,
  part,
  title,
  view,
  eventOffsetsMs = null,
  highlight = '',
}: {
  fetchBody: FetchBody;
  part: BodyPart;
  title: string;
  view: BodyView | null;
  /** For stream events: when each arrived, ms since the request started. */
  eventOffsetsMs?: number[] | null;
  highlight?: string;
}) {
  const inlineMatch = view?.text != null && matchRanges(view.text, highlight).length > 0;
  const [loaded, setLoaded] = useState<Loaded>(() =>
    inlineMatch && view?.text != null ? { kind: 'ready', text: view.text, truncated: view.truncated } : { kind: 'closed' },
  );

  if (!view) return <p className="muted">{title}: none recorded.</p>;

  const open = () => {
    // Opened again after a failed fetch, it asks again (sharedBodyFetch forgot the failure).
    if (loaded.kind === 'loading' || loaded.kind === 'ready') return;
    if (view.text !== null) {
      setLoaded({ kind: 'ready', text: view.text, truncated: view.truncated });
      return;
    }
    setLoaded({ kind: 'loading' });
    fetchBody(part).then(
      (body) => setLoaded({ kind: 'ready', text: body.text, truncated: body.truncated }),
      (error: Error) => setLoaded({ kind: 'error', error }),
    );
  };

  return (
    <details className="body-panel" open={inlineMatch || undefined} onToggle={(event) => (event.currentTarget.open ? open() : undefined)}>
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
        <BodyContent
          part={part}
          text={loaded.text}
          truncated={loaded.truncated}
          eventOffsetsMs={eventOffsetsMs}
          highlight={highlight}
          contentType={view.contentType}
        />
      )}
    </details>
  );
});
