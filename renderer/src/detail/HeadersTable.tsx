import { memo } from 'react';

/**
 * `open`: shown unfolded, e.g. a failure's response headers (a 429's Retry-After is the answer to "when may I retry").
 * Memoised, as the detail's other logged parts: they do not change with a running request's stream frames.
 */
export const HeadersTable = memo(function HeadersTable({
  title,
  headers,
  open = false,
}: {
  title: string;
  headers: Record<string, string>;
  open?: boolean;
}) {
  const entries = Object.entries(headers);
  return (
    <details className="headers" open={open || undefined}>
      <summary>
        {title} <span className="muted">({entries.length})</span>
      </summary>
      {entries.length === 0 ? (
        <p className="muted">None recorded.</p>
      ) : (
        <table>
          <tbody>
            {entries.map(([name, value]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td>
                  <code>{value}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </details>
  );
});
