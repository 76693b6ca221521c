// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import { ControlApiError, createControlClient, type ControlClient } from '../../../renderer/src/api/client.ts';
import { ExportButtons } from '../../../renderer/src/export/ExportButtons.tsx';
import { TraceExportSetting } from '../../../renderer/src/export/TraceExportSetting.tsx';
import type { TraceExportHeaderView, TraceExportView } from '../../../proxy/contracts/traceHeaders.ts';
import { fakeClient } from './fakeClient.ts';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/** The anchor the component clicks to hand the file over, captured instead of downloading. */
function captureDownloads(): Array<{ name: string; href: string }> {
  const downloads: Array<{ name: string; href: string }> = [];
  vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:airlock/1');
  vi.spyOn(URL, 'revokeObjectURL').mockReturnValue(undefined);
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    downloads.push({ name: this.download, href: this.href });
  });
  return downloads;
}

describe('ExportButtons', () => {
  it.each([
    ['HAR', 'har'],
    ['CSV', 'csv'],
  ] as const)('requests: Export %s downloads the list with its filters under the name the proxy gave', async (label, format) => {
    const downloads = captureDownloads();
    const exportRequests = vi.fn(async () => ({ fileName: `airlock-requests-20261126-0100.${format}`, blob: new Blob(['x']) }));
    const filters = { model: 'gpt-4o-mini', status: 'error' as const };
    render(
      <ApiProvider client={fakeClient({ exportRequests })}>
        <ExportButtons kind="requests" filters={filters} />
      </ApiProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: `Export ${label}` }));
    await waitFor(() => expect(downloads).toEqual([{ name: `airlock-requests-20261126-0100.${format}`, href: 'blob:airlock/1' }]));
    expect(exportRequests).toHaveBeenCalledWith(format, filters);
  });

  it('spend: one CSV button for the range on screen', async () => {
    const downloads = captureDownloads();
    const exportSpend = vi.fn(async () => ({ fileName: 'airlock-spend.csv', blob: new Blob(['x']) }));
    render(
      <ApiProvider client={fakeClient({ exportSpend })}>
        <ExportButtons kind="spend" range="30d" />
      </ApiProvider>,
    );
    expect(screen.getAllByRole('button').map((button) => button.textContent)).toEqual(['Export CSV']);
    fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(downloads).toHaveLength(1));
    expect(exportSpend).toHaveBeenCalledWith('30d');
  });

  it("shows the proxy's reason when an export fails", async () => {
    const exportSpend = vi.fn(async () => {
      throw new ControlApiError(0, 'network', 'Airlock is not reachable. Is the proxy still running?');
    });
    render(
      <ApiProvider client={fakeClient({ exportSpend })}>
        <ExportButtons kind="spend" range="7d" />
      </ApiProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(await screen.findByText(/Export failed: Airlock is not reachable/)).toBeTruthy();
  });
});

/** The setting as the proxy answers it, without headers unless given. */
function viewOf(otlpEndpoint: string | null, headers: TraceExportHeaderView[] = []): TraceExportView {
  return { otlpEndpoint, headers, headersProblem: null };
}

describe('TraceExportSetting', () => {
  it('saves a typed endpoint, then turns the export off', async () => {
    let saved: string | null = null;
    const saveTraceExport = vi.fn(async ({ otlpEndpoint }: { otlpEndpoint: string | null }) => {
      saved = otlpEndpoint;
      return viewOf(otlpEndpoint);
    });
    render(
      <ApiProvider client={fakeClient({ traceExport: async () => viewOf(saved), saveTraceExport })}>
        <TraceExportSetting />
      </ApiProvider>,
    );
    const input = (await screen.findByLabelText('OTLP endpoint')) as HTMLInputElement;
    expect(input.value).toBe('');
    expect(screen.queryByRole('button', { name: 'Turn off' })).toBeNull();
    fireEvent.change(input, { target: { value: '  http://127.0.0.1:4318 ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save endpoint' }));
    expect(await screen.findByText('Saved. Spans go to http://127.0.0.1:4318 from the next request on.')).toBeTruthy();
    expect(saveTraceExport).toHaveBeenLastCalledWith({ otlpEndpoint: 'http://127.0.0.1:4318' });

    fireEvent.click(await screen.findByRole('button', { name: 'Turn off' }));
    expect(await screen.findByText('Trace export is off.')).toBeTruthy();
    expect(saveTraceExport).toHaveBeenLastCalledWith({ otlpEndpoint: null });
  });

  it("shows the proxy's refusal of a bad URL", async () => {
    const saveTraceExport = vi.fn(async () => {
      throw new ControlApiError(400, 'invalid', 'otlpEndpoint: an http:// or https:// URL', 'otlpEndpoint');
    });
    render(
      <ApiProvider client={fakeClient({ traceExport: async () => viewOf(null), saveTraceExport })}>
        <TraceExportSetting />
      </ApiProvider>,
    );
    fireEvent.change(await screen.findByLabelText('OTLP endpoint'), { target: { value: 'ftp://x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save endpoint' }));
    expect(await screen.findByText('otlpEndpoint: an http:// or https:// URL')).toBeTruthy();
  });
});

describe('TraceExportSetting headers', () => {
  it('lists names with their last four, adds one from a password field, replaces and removes one', async () => {
    let headers: TraceExportHeaderView[] = [{ name: 'x-honeycomb-dataset', set: true, lastFour: null }];
    const setTraceExportHeader = vi.fn(async ({ name }: { name: string; value: string }) => {
      const normalized = name.trim().toLowerCase();
      headers = [...headers.filter((header) => header.name !== normalized), { name: normalized, set: true, lastFour: '7Q2x' }];
      return viewOf('https://api.honeycomb.io', headers);
    });
    const removeTraceExportHeader = vi.fn(async (name: string) => {
      headers = headers.filter((header) => header.name !== name);
      return viewOf('https://api.honeycomb.io', headers);
    });
    render(
      <ApiProvider
        client={fakeClient({
          traceExport: async () => viewOf('https://api.honeycomb.io', headers),
          setTraceExportHeader,
          removeTraceExportHeader,
        })}
      >
        <TraceExportSetting />
      </ApiProvider>,
    );
    expect(await screen.findByText('set (too short to show its end)')).toBeTruthy();

    const value = screen.getByLabelText('Header value') as HTMLInputElement;
    expect(value.type).toBe('password');
    fireEvent.change(screen.getByLabelText('Header name'), { target: { value: 'X-Honeycomb-Team' } });
    fireEvent.change(value, { target: { value: 'hcSENTINELtraceHdr7Q2x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add header' }));
    expect(await screen.findByText('Saved x-honeycomb-team in the keychain. It goes with the spans of the next request on.')).toBeTruthy();
    expect(setTraceExportHeader).toHaveBeenLastCalledWith({ name: 'X-Honeycomb-Team', value: 'hcSENTINELtraceHdr7Q2x' });
    expect(value.value).toBe('');
    expect(await screen.findByText('ends in …7Q2x')).toBeTruthy();

    const replace = screen.getByLabelText('New value for x-honeycomb-team') as HTMLInputElement;
    expect(replace.type).toBe('password');
    fireEvent.change(replace, { target: { value: 'second-team-key-0042' } });
    fireEvent.click(within(screen.getByTestId('trace-header-x-honeycomb-team')).getByRole('button', { name: 'Save value' }));
    expect(await screen.findByText(/^Saved a new value for x-honeycomb-team\./)).toBeTruthy();
    expect(setTraceExportHeader).toHaveBeenLastCalledWith({ name: 'x-honeycomb-team', value: 'second-team-key-0042' });

    fireEvent.click(screen.getByRole('button', { name: 'Remove header x-honeycomb-dataset' }));
    expect(await screen.findByText(/^Removed x-honeycomb-dataset\./)).toBeTruthy();
    expect(removeTraceExportHeader).toHaveBeenCalledWith('x-honeycomb-dataset');
    await waitFor(() => expect(screen.queryByTestId('trace-header-x-honeycomb-dataset')).toBeNull());
  });

  it("shows the proxy's refusal and why values could not be read", async () => {
    const setTraceExportHeader = vi.fn(async () => {
      throw new ControlApiError(400, 'invalid', 'value: the value holds a line break (CR or LF); give it on one line', 'value');
    });
    const problem = 'no OS keychain (Secret Service) is available: no D-Bus session. Start a keyring (e.g. gnome-keyring) in this session';
    render(
      <ApiProvider
        client={fakeClient({
          traceExport: async () => ({ ...viewOf(null, [{ name: 'api-key', set: false, lastFour: null }]), headersProblem: problem }),
          setTraceExportHeader,
        })}
      >
        <TraceExportSetting />
      </ApiProvider>,
    );
    expect(await screen.findByText(problem)).toBeTruthy();
    expect(screen.getByText('no value in the keychain: set it again')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Header name'), { target: { value: 'api-key' } });
    fireEvent.change(screen.getByLabelText('Header value'), { target: { value: 'a\nb' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add header' }));
    expect(await screen.findByText('value: the value holds a line break (CR or LF); give it on one line')).toBeTruthy();
  });
});

describe('the client asks for downloads with the list filters and takes the file name from the proxy', () => {
  it.each<[string, (client: ControlClient) => Promise<unknown>, string]>([
    [
      'requests with filters',
      (client) => client.exportRequests('har', { model: 'gpt-4o-mini', status: 'error' }),
      '/api/export/requests?model=gpt-4o-mini&status=error&format=har',
    ],
    ['requests without filters', (client) => client.exportRequests('csv', {}), '/api/export/requests?format=csv'],
    ['spend', (client) => client.exportSpend('today'), '/api/export/spend?format=csv&range=today'],
  ])('%s', async (_name, call, expectedUrl) => {
    const urls: string[] = [];
    const client = createControlClient({
      apiBase: '/api',
      fetchImpl: async (input) => {
        urls.push(String(input));
        return new Response('a,b\n', { headers: { 'content-disposition': 'attachment; filename="airlock-x-20261126-0100.csv"' } });
      },
    });
    expect(await call(client)).toMatchObject({ fileName: 'airlock-x-20261126-0100.csv' });
    expect(urls).toEqual([expectedUrl]);
  });
});
