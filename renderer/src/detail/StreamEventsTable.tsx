import { formatDuration } from '../common/format.ts';
import { Highlighted } from './Highlighted.tsx';
import { parseStreamEvents } from './streamEvents.ts';

/**
 * A logged stream as its events, one row each, with when it arrived (since the request started) and
 * the text it added. Streams logged before arrival times were kept, and events past those timed, show "—".
 */
export function StreamEventsTable({ raw, offsetsMs, highlight }: { raw: string; offsetsMs: number[] | null; highlight: string }) {
  const rows = parseStreamEvents(raw);
  if (rows.length === 0) return <p className="muted">No events in the recorded stream.</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the table scrolls; keyboard users must be able to focus it to scroll it
    <section className="events-scroll" tabIndex={0} aria-label="Stream events">
      <table className="events-table">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Event</th>
            <th scope="col">Text added</th>
            <th scope="col">Data</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.index}>
              <td className="num">{row.index}</td>
              <td className="num">{formatDuration(offsetsMs?.[row.index - 1] ?? null)}</td>
              <td>{row.type}</td>
              <td className="delta">
                <Highlighted text={row.delta} needle={highlight} />
              </td>
              <td className="data">
                <code>
                  <Highlighted text={row.data} needle={highlight} />
                </code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
