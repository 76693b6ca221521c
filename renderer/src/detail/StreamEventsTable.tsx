import { Highlighted } from './Highlighted.tsx';
import { parseStreamEvents } from './streamEvents.ts';

/** A logged stream as its events, one row each, with the text each added. */
export function StreamEventsTable({ raw, highlight }: { raw: string; highlight: string }) {
  const rows = parseStreamEvents(raw);
  if (rows.length === 0) return <p className="muted">No events in the recorded stream.</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the table scrolls; keyboard users must be able to focus it to scroll it
    <section className="events-scroll" tabIndex={0} aria-label="Stream events">
      <table className="events-table">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Event</th>
            <th scope="col">Text added</th>
            <th scope="col">Data</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.index}>
              <td className="num">{row.index}</td>
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
