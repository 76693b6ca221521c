import { describe, expect, it } from 'vitest';
import {
  classifyStartupError,
  decideWindowClose,
  drainThenQuit,
  QUIT_DRAIN_MS,
  quitDrainMs,
  secondInstanceSteps,
  startupProblemView,
} from '../../../electron/logic/lifecycle.ts';
import { PortBlockedError } from '../../../proxy/http/listenRefusal.ts';
import { RequestLogUnreadableError } from '../../../proxy/store/logCheck.ts';
import { RequestLogDamagedError } from '../../../proxy/store/logRecovery.ts';
import { DataDirInUseError } from '../../../proxy/app/dataDirLock.ts';

describe('window close and quit', () => {
  it.each([
    [false, 'hide'],
    [true, 'close'],
  ] as const)('quitting=%s -> %s', (quitting, expected) => {
    expect(decideWindowClose(quitting)).toBe(expected);
  });

  it.each([
    [0, QUIT_DRAIN_MS, 0],
    [1, QUIT_DRAIN_MS, QUIT_DRAIN_MS],
    [20, 2_000, 2_000],
  ])('%i in flight, max %i ms -> drain %i ms', (inFlight, max, expected) => {
    expect(quitDrainMs(inFlight, max)).toBe(expected);
  });
});

describe('drainThenQuit', () => {
  function steps(inFlight: number, stop: (drainMs: number) => Promise<void>) {
    const done: string[] = [];
    const run = drainThenQuit({
      inFlightCount: () => inFlight,
      stop: async (drainMs) => {
        done.push(`stop ${drainMs}`);
        await stop(drainMs);
      },
      tell: (title, body) => done.push(`${title}: ${body}`),
      quit: () => done.push('quit'),
    });
    return { run, done };
  }

  it('quits at once, saying nothing, when nothing is in flight', async () => {
    const { run, done } = steps(0, async () => undefined);
    await run;
    expect(done).toEqual(['stop 0', 'quit']);
  });

  it('says it is finishing the requests in flight and how to quit at once, then quits', async () => {
    const { run, done } = steps(3, async () => undefined);
    await run;
    expect(done).toEqual([
      'Airlock is quitting: Finishing 3 requests in flight (at most 5 s). Quit again to stop them now.',
      `stop ${QUIT_DRAIN_MS}`,
      'quit',
    ]);
  });

  it('still quits when stopping the proxy fails, instead of leaving an app that no longer serves', async () => {
    const { run, done } = steps(1, async () => {
      throw new Error('log thread gone');
    });
    await run;
    expect(done.at(-1)).toBe('quit');
  });
});

describe('secondInstanceSteps', () => {
  it.each([
    ['none', ['create', 'show', 'focus']],
    ['hidden', ['show', 'focus']],
    ['minimized', ['restore', 'focus']],
    ['visible', ['focus']],
  ] as const)('%s -> %j', (presence, expected) => {
    expect(secondInstanceSteps(presence)).toEqual(expected);
  });
});

class PortInUseError extends Error {
  override name = 'PortInUseError';
}

describe('classifyStartupError', () => {
  it.each([
    ['PortInUseError', new PortInUseError('port 8642 is taken'), 'port_in_use'],
    ['EADDRINUSE', Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }), 'port_in_use'],
    ['PortBlockedError', new PortBlockedError(8642, '127.0.0.1', 'EACCES'), 'port_blocked'],
    // A file's EACCES (the data directory's) is no port's.
    ['EACCES of a file', Object.assign(new Error("EACCES: permission denied, open '/d/airlock.json'"), { code: 'EACCES' }), 'unknown'],
    ['DataDirInUseError', new DataDirInUseError('/home/me/.config/Airlock', 4242), 'data_dir_in_use'],
    [
      'RequestLogDamagedError',
      new RequestLogDamagedError('The request log /d/requests.db is damaged and could not be moved aside (EACCES).'),
      'log_damaged',
    ],
    ['RequestLogUnreadableError', new RequestLogUnreadableError('/d/requests.db', new Error('disk I/O error')), 'log_unreadable'],
    ['no Secret Service', new Error('The name org.freedesktop.secrets was not provided by any .service files'), 'keychain_unavailable'],
    ['no D-Bus', new Error('Cannot autolaunch D-Bus without X11 $DISPLAY'), 'keychain_unavailable'],
    ['locked collection', new Error('Secret Service: the collection is locked'), 'keychain_locked'],
    ['macOS refusal', new Error('Keychain: User canceled the operation.'), 'keychain_locked'],
    ['something else', new Error('boom'), 'unknown'],
    ['a thrown string', 'boom', 'unknown'],
  ])('%s -> %s', (_name, error, kind) => {
    expect(classifyStartupError(error, 8642).kind).toBe(kind);
  });

  it("keeps the damaged log's own message, which names the file", () => {
    expect(classifyStartupError(new RequestLogDamagedError('The request log /d/requests.db is damaged.'), 8642).detail).toBe(
      'The request log /d/requests.db is damaged',
    );
  });

  it('names the port', () => {
    expect(classifyStartupError(new PortInUseError('x'), 8642).detail).toContain('8642');
  });
});

describe('startupProblemView', () => {
  it.each([
    ['port_in_use', /8642/, /lsof -i :8642/],
    ['port_blocked', /Port 8642 is blocked/, /netsh int ipv4 show excludedportrange protocol=tcp/],
    ['data_dir_in_use', /Another Airlock/, /Stop the other one/],
    ['log_damaged', /request log is damaged/, /Move the files it names/],
    ['log_unreadable', /cannot be opened/, /free space/],
    ['keychain_locked', /locked/, /Unlock/],
    ['keychain_unavailable', /keychain/, /gnome-keyring|Secret Service/],
    ['unknown', /could not start/, /npm run serve/],
  ] as const)('%s says the cause and the fix', (kind, title, fix) => {
    const view = startupProblemView({ kind, detail: 'detail' }, 8642);
    expect(view.title).toMatch(title);
    expect(view.fix).toMatch(fix);
  });
});
