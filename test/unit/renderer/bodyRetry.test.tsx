// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { BodyView } from '../../../proxy/contracts/requests.ts';
import { createControlClient } from '../../../renderer/src/api/client.ts';
import { BodyPanel } from '../../../renderer/src/detail/BodyPanel.tsx';
import { sharedBodyFetch } from '../../../renderer/src/detail/bodyFetch.ts';
import { BodyReaderContext } from '../../../renderer/src/detail/bodyReader.ts';
import { bodyReaderHere } from './bodyReaderHere.ts';

afterEach(cleanup);

const BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Name a colour.' }] });
const FAILURE = 'The request log could not be read.';

/**
 * The typed client on a control API whose body route fails the first `failures` times (the log busy,
 * the proxy restarting), then answers; `calls` counts the body fetches that reached it.
 */
function flakyClient(failures: number) {
  const calls: string[] = [];
  const client = createControlClient({
    fetchImpl: async (input) => {
      calls.push(String(input));
      if (calls.length <= failures) {
        return new Response(JSON.stringify({ error: { code: 'unavailable', message: FAILURE } }), {
          status: 503,
          headers: { 'content-type': 'application/json' },
        });
      }
      return new Response(JSON.stringify({ text: BODY, truncated: false }), { headers: { 'content-type': 'application/json' } });
    },
  });
  return { client, calls };
}

describe('sharedBodyFetch', () => {
  it('forgets a failed fetch, so the next view to ask fetches again, and keeps one that came', async () => {
    const { client, calls } = flakyClient(1);
    const fetchBody = sharedBodyFetch(client, 'alk_1');
    await expect(fetchBody('request')).rejects.toThrow(FAILURE);
    await expect(fetchBody('request')).resolves.toEqual({ text: BODY, truncated: false });
    await expect(fetchBody('request')).resolves.toEqual({ text: BODY, truncated: false });
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatch(/\/requests\/alk_1\/body\/request$/);
  });
});

describe('the body panel', () => {
  it('fetches the body again when opened again after its fetch failed', async () => {
    const { client, calls } = flakyClient(1);
    const view: BodyView = { sizeBytes: BODY.length, truncated: false, contentType: 'application/json', text: null };
    render(
      <BodyReaderContext.Provider value={bodyReaderHere}>
        <BodyPanel fetchBody={sharedBodyFetch(client, 'alk_1')} part="request" title="Request body" view={view} />
      </BodyReaderContext.Provider>,
    );
    const details = screen.getByText('Request body').closest('details') as HTMLDetailsElement;
    const toggle = (open: boolean): void => {
      details.open = open;
      fireEvent(details, new Event('toggle'));
    };

    toggle(true);
    expect((await screen.findByRole('alert')).textContent).toContain(FAILURE);
    toggle(false);
    toggle(true);
    await screen.findByRole('button', { name: 'Tree' });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(calls).toHaveLength(2);
  });
});
