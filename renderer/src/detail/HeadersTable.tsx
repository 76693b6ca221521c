export function HeadersTable({ title, headers }: { title: string; headers: Record<string, string> }) {
  const entries = Object.entries(headers);
  return (
    <details className="headers">
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
}
