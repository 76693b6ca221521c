// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamEventsTable } from '../../../renderer/src/detail/StreamEventsTable.tsx';
import { parseStreamEvents } from '../../../renderer/src/detail/streamEvents.ts';
import { charactersSearched } from '../../support/charactersSearched.ts';

afterEach(cleanup);

const RAW = 'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: {"choices":[{"delta":{"content":"!"}}]}\n\ndata: [DONE]\n\n';

function timeCells(): string[] {
  return screen
    .getAllByRole('row')
    .slice(1)
    .map((row) => row.querySelectorAll('td')[1]?.textContent ?? '');
}

describe('StreamEventsTable', () => {
  it.each<[string, number[] | null, string[]]>([
    ['every event timed', [5, 250, 1_500], ['5 ms', '250 ms', '1.50 s']],
    ['a row logged before times were kept', null, ['—', '—', '—']],
    ['events past those timed', [5], ['5 ms', '—', '—']],
  ])('%s: the Time column reads %j', (_name, offsetsMs, expected) => {
    render(<StreamEventsTable raw={RAW} offsetsMs={offsetsMs} highlight="" />);
    expect(screen.getByRole('columnheader', { name: 'Time' })).toBeTruthy();
    expect(timeCells()).toEqual(expected);
  });
});

describe('parseStreamEvents', () => {
  it('reads a large stream whose lines end in a lone CR once, not once a line (the detail view would freeze)', () => {
    const raw = 'data: {"choices":[{"delta":{"content":"x"}}]}\n\n'.repeat(2_000);
    const loneCr = raw.replaceAll('\n', '\r');
    let rows: ReturnType<typeof parseStreamEvents> = [];
    const searched = charactersSearched(() => {
      rows = parseStreamEvents(loneCr);
    });
    expect(rows).toEqual(parseStreamEvents(raw));
    expect(searched).toBeLessThan(loneCr.length * 4);
  });
});
