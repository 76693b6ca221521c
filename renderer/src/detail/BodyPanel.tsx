import { memo, useMemo, useState } from 'react';
import { defaultStyles, JsonView } from 'react-json-view-lite';
import type { BodyPart, BodyView } from '../../../proxy/contracts/requests.ts';
import { CopyButton } from '../common/CopyButton.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { prettyBody } from './copyText.ts';
import type { FetchBody } from './bodyFetch.ts';
import { Highlighted, matchRanges } from './Highlighted.tsx';
import { StreamEventsTable } from './StreamEventsTable.tsx';

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The library's layout classes, with colours of our own so both themes keep their contrast. */
const JSON_STYLES = {
  ...defaultStyles,
  container: 'json-tree',
  label: 'json-key',
  clickableLabel: 'json-key json-clickable',
  stringValue: 'json-string',
  numberValue: 'json-number',
  booleanValue: 'json-literal',
  nullValue: 'json-literal',
  undefinedValue: 'json-literal',
  otherValue: 'json-literal',
  punctuation: 'json-punctuation',
};

type Loaded =
  | { kind: 'closed' }
  | { kind: 'loading' }
  | { kind: 'error'; error: Error }
  | { kind: 'ready'; text: string; truncated: boolean };

type Mode = 'structured' | 'raw';

function parseJson(text: string): object | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : null;
  } catch {
    return null;
  }
}

interface BodyContentProps {
  part: BodyPart;
  text: string;
  truncated: boolean;
  eventOffsetsMs: number[] | null;
  highlight: string;
}

function BodyContent({ part, text, truncated, eventOffsetsMs, highlight }: BodyContentProps) {
  // Read once per body: the detail renders again at each frame of a running request's stream, and a body is up to megabytes.
  const { json, raw } = useMemo(() => {
    if (part === 'stream-events') return { json: null, raw: text };
    const json = parseJson(text);
    return { json, raw: json === null ? prettyBody(text) : JSON.stringify(json, null, 2) };
  }, [part, text]);
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
        {matches > 0 && (
          <span className="match-count">
            {matches} {matches === 1 ? 'match' : 'matches'} for “{highlight.trim()}”
          </span>
        )}
      </div>
      {mode === 'structured' && part === 'stream-events' && (
        <StreamEventsTable raw={text} offsetsMs={eventOffsetsMs} highlight={highlight} />
      )}
      {mode === 'structured' && json !== null && (
        <JsonView data={json} style={JSON_STYLES} shouldExpandNode={(level) => level < 3} clickToExpandNode />
      )}
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
    if (loaded.kind !== 'closed') return;
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
        <BodyContent part={part} text={loaded.text} truncated={loaded.truncated} eventOffsetsMs={eventOffsetsMs} highlight={highlight} />
      )}
    </details>
  );
});
