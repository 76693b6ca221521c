// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyPanel } from '../../../renderer/src/detail/BodyPanel.tsx';

afterEach(cleanup);

/** The request body panel of a logged body carried with the detail, opened; its note, or null. */
async function noteFor(text: string, contentType: string | null, truncated: boolean): Promise<string | null> {
  render(
    <BodyPanel
      fetchBody={async () => ({ text, truncated })}
      part="request"
      title="Request body"
      view={{ sizeBytes: text.length, truncated, contentType, text }}
    />,
  );
  const details = screen.getByText('Request body').closest('details') as HTMLDetailsElement;
  details.open = true;
  fireEvent(details, new Event('toggle'));
  await screen.findByRole('button', { name: 'Copy body' });
  return document.querySelector('.body-note')?.textContent ?? null;
}

describe('a logged body that does not parse as JSON', () => {
  it.each([
    ['declared JSON, broken', '{"model":"m",, }', 'application/json', false, 'Not valid JSON: shown as the text recorded'],
    [
      'declared JSON, cut when logged',
      '{"model":"m","messages":[{"role":"user","content":"ab',
      'application/json',
      true,
      'Not whole JSON (cut when logged): shown as the text recorded',
    ],
    ['undeclared, opening as JSON', '[{"model":"m"},', null, false, 'Not valid JSON: shown as the text recorded'],
    ['a form', '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nm\r\n--b--\r\n', 'multipart/form-data; boundary=b', false, null],
    ['plain text', 'hello there', 'text/plain', false, null],
    ['JSON that parses', '{"model":"m"}', 'application/json', false, null],
  ])('%s: says so only where JSON was meant', async (_case, text, contentType, truncated, note) => {
    expect(await noteFor(text, contentType, truncated)).toBe(note);
  });
});
