import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLogForReading } from '../../../../proxy/app/export/readOnlyLog.ts';
import { commandHint, PLAIN_HINT } from '../../../../proxy/contracts/cli.ts';

// The desktop app opens the default data directory (or AIRLOCK_DATA_DIR's) only: on another, it is no way to start a log there.
const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-no-log-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function messageOf(open: () => unknown): string {
  try {
    open();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('opened');
}

describe('a data directory with no request log yet', () => {
  it('on the default directory: serve or the app', () => {
    expect(messageOf(() => openLogForReading(dataDir, PLAIN_HINT.command))).toContain('start Airlock (`npx airlock serve` or the app)');
  });

  it('on another directory: its serve only', () => {
    const message = messageOf(() => openLogForReading(dataDir, commandHint('/data/other').command));
    expect(message).toContain('start Airlock (`npx airlock serve --data-dir /data/other`)');
    expect(message).not.toContain('the app');
  });
});
