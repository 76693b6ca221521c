import { describe, expect, it } from 'vitest';
import { commandHint } from '../../../../proxy/contracts/cli.ts';
import { DEFAULT_PORT } from '../../../../proxy/contracts/defaults.ts';
import { headlessResumeWay } from '../../../../proxy/app/cli/serve.ts';
import { DESKTOP_RESUME_WAY, pausedRefusal } from '../../../../proxy/forward/ownRefusals.ts';

describe('how a paused Airlock says it is resumed', () => {
  it.each([
    ['default port and data directory', DEFAULT_PORT, null, '`npx airlock resume`', '`npx airlock window`'],
    ['another port', 9100, null, '`npx airlock resume --port 9100`', '`npx airlock window --port 9100`'],
    [
      'another data directory',
      DEFAULT_PORT,
      '/srv/my dir',
      "`npx airlock resume --data-dir '/srv/my dir'`",
      "`npx airlock window --data-dir '/srv/my dir'`",
    ],
  ])('airlock serve (%s): the resume command first, then the window, and no tray', (_case, port, dataDir, resume, window) => {
    const { message } = pausedRefusal(headlessResumeWay(commandHint(dataDir, { port: () => port })));
    expect(message).toContain(`Resume it with ${resume}, or in the window's status bar (${window} prints a sign-in link), then retry.`);
    expect(message).not.toContain('tray');
  });

  it('the desktop app: its tray and window', () => {
    expect(pausedRefusal(DESKTOP_RESUME_WAY).message).toBe(
      'Airlock is paused, so nothing is sent to the gateway. Resume it from the tray or the window (status bar), then retry.',
    );
  });
});
