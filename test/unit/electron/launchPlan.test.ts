import { describe, expect, it } from 'vitest';
import { decideLaunch, DOWNLOAD_FAILED_MESSAGE, electronBinaryPath, needsBuild } from '../../../electron/logic/launchPlan.ts';

describe('decideLaunch', () => {
  const fresh = { outputMtimesMs: [200, 200, 200], newestSourceMtimeMs: 100 };

  it.each([
    ['no path.txt (never downloaded)', { electronBinaryPath: null, electronBinaryExists: false }],
    ['path.txt but no binary', { electronBinaryPath: '/p/node_modules/electron/dist/electron', electronBinaryExists: false }],
  ])('%s -> downloads the binary first', (_name, binary) => {
    expect(decideLaunch({ ...binary, ...fresh })).toEqual({ kind: 'download_binary' });
  });

  it('launches without building when the outputs are fresh', () => {
    expect(decideLaunch({ electronBinaryPath: '/e', electronBinaryExists: true, ...fresh })).toEqual({
      kind: 'launch',
      buildFirst: false,
      electronBinaryPath: '/e',
    });
  });

  it('builds first when an output is stale', () => {
    expect(
      decideLaunch({ electronBinaryPath: '/e', electronBinaryExists: true, outputMtimesMs: [200, 50, 200], newestSourceMtimeMs: 100 }),
    ).toMatchObject({ buildFirst: true });
  });

  it('after a failed download, says the binary comes on first start and gives both ways out', () => {
    expect(DOWNLOAD_FAILED_MESSAGE).not.toMatch(/ELECTRON_SKIP_BINARY_DOWNLOAD|npm install/);
    expect(DOWNLOAD_FAILED_MESSAGE).toMatch(/first time the app starts/);
    expect(DOWNLOAD_FAILED_MESSAGE).toMatch(/npx install-electron/);
    expect(DOWNLOAD_FAILED_MESSAGE).toMatch(/npm run serve/);
  });
});

describe('needsBuild', () => {
  it.each([
    [[200, 200], 100, false],
    [[200, 100], 100, false],
    [[200, 99], 100, true],
    [[200, null], 100, true],
    [[], 100, false],
  ])('outputs %j, newest source %i -> %s', (outputs, source, expected) => {
    expect(needsBuild(outputs, source)).toBe(expected);
  });
});

describe('electronBinaryPath', () => {
  it.each([
    [null, undefined, null],
    ['', undefined, null],
    ['electron\n', undefined, '/m/electron/dist/electron'],
    ['Electron.app/Contents/MacOS/Electron', undefined, '/m/electron/dist/Electron.app/Contents/MacOS/Electron'],
    [null, '/opt/electron', '/opt/electron/electron'],
    ['electron.exe', '/opt/electron/', '/opt/electron/electron.exe'],
  ])('path.txt %j, override %j -> %j', (pathTxt, override, expected) => {
    expect(electronBinaryPath(pathTxt, '/m/electron', override)).toBe(expected);
  });
});
