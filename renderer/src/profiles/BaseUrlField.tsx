import { useEffect, useState } from 'react';
import type { BaseUrlPreview } from '../../../proxy/contracts/profileViews.ts';
import { useApi } from '../api/ApiContext.tsx';
import { useDebounced } from '../common/useDebounced.ts';

/** The base URL input with what the proxy will normalise it to, updated as the user types. */
export function BaseUrlField({ value, error, onChange }: { value: string; error: string | undefined; onChange: (value: string) => void }) {
  const api = useApi();
  const settled = useDebounced(value, 200);
  const [preview, setPreview] = useState<BaseUrlPreview | null>(null);

  useEffect(() => {
    if (settled.trim() === '') {
      setPreview(null);
      return undefined;
    }
    let current = true;
    api.previewBaseUrl(settled).then(
      (result) => current && setPreview(result),
      () => current && setPreview(null),
    );
    return () => {
      current = false;
    };
  }, [api, settled]);

  return (
    <div className="field">
      <label>
        Base URL
        <input
          value={value}
          placeholder="https://gateway.example/v1"
          aria-describedby="base-url-preview"
          aria-invalid={error ? true : undefined}
          onChange={(event) => onChange(event.target.value)}
        />
      </label>
      <p id="base-url-preview" className="hint" aria-live="polite">
        {error && <span className="field-error">{error} </span>}
        {preview?.normalized && (
          <>
            Requests go to <code data-testid="normalized-base-url">{preview.normalized}</code>
          </>
        )}
        {preview?.error && <span className="field-error">{preview.error}</span>}
        {preview?.notes.map((note) => (
          <span key={note} className="note">
            {' '}
            {note}
          </span>
        ))}
      </p>
    </div>
  );
}
