import { useState } from 'react';
import type { RequestFilters } from '../../../proxy/contracts/requests.ts';
import type { SpendRange } from '../../../proxy/contracts/spend.ts';
import type { RequestExportFormat } from '../../../proxy/contracts/export.ts';
import { useApi } from '../api/ApiContext.tsx';
import type { ExportFile } from '../api/client.ts';
import { BusyButton } from '../common/BusyButton.tsx';
import { FormError } from '../common/StateViews.tsx';

type ExportButtonsProps = { kind: 'requests'; filters: RequestFilters } | { kind: 'spend'; range: SpendRange };

/**
 * Hands a downloaded file to the browser (or Electron's save dialog). The file is fetched first, not
 * linked: the desktop window signs its calls with a header a plain link would not carry.
 */
function save({ fileName, blob }: ExportFile): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // The click has started the download; the URL is not needed once this task ends.
  setTimeout(() => URL.revokeObjectURL(url));
}

/** Export what the screen shows: the request list with its filters (HAR, CSV) or spend over its range (CSV). */
export function ExportButtons(props: ExportButtonsProps) {
  const api = useApi();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const formats: RequestExportFormat[] = props.kind === 'requests' ? ['har', 'csv'] : ['csv'];

  const run = async (format: RequestExportFormat) => {
    setBusy(format);
    setError(null);
    try {
      save(props.kind === 'requests' ? await api.exportRequests(format, props.filters) : await api.exportSpend(props.range));
    } catch (caught) {
      setError(`Export failed: ${(caught as Error).message}`);
    } finally {
      setBusy(null);
    }
  };

  const what = props.kind === 'requests' ? 'the requests these filters show' : 'spend per day and model for this range';
  return (
    <div className="export-buttons">
      {formats.map((format) => (
        <BusyButton
          key={format}
          busy={busy !== null}
          onPress={() => void run(format)}
          title={`Download ${what} as ${format.toUpperCase()}`}
        >
          {busy === format ? 'Exporting…' : `Export ${format.toUpperCase()}`}
        </BusyButton>
      ))}
      <FormError message={error} />
    </div>
  );
}
