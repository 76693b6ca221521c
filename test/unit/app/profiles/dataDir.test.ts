import { describe, expect, it } from 'vitest';
import { resolveDataDir } from '../../../../proxy/app/dataDir.ts';

describe('resolveDataDir', () => {
  it.each([
    ['flag wins over everything', { AIRLOCK_DATA_DIR: '/env/dir' }, 'linux', '/tmp/flag', '/tmp/flag'],
    ['env var when no flag', { AIRLOCK_DATA_DIR: '/env/dir' }, 'linux', undefined, '/env/dir'],
    ['blank flag is ignored', { AIRLOCK_DATA_DIR: '/env/dir' }, 'linux', '  ', '/env/dir'],
    ['linux default', {}, 'linux', undefined, '/home/u/.config/Airlock'],
    ['linux XDG_CONFIG_HOME', { XDG_CONFIG_HOME: '/xdg' }, 'linux', undefined, '/xdg/Airlock'],
    ['linux empty XDG_CONFIG_HOME', { XDG_CONFIG_HOME: '' }, 'linux', undefined, '/home/u/.config/Airlock'],
    ['macOS default', {}, 'darwin', undefined, '/home/u/Library/Application Support/Airlock'],
    ['windows APPDATA', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', undefined, 'C:\\Users\\u\\AppData\\Roaming\\Airlock'],
    ['windows without APPDATA', {}, 'win32', undefined, '\\home\\u\\AppData\\Roaming\\Airlock'],
  ] as const)('%s', (_label, env, platform, flag, expected) => {
    expect(resolveDataDir({ ...env }, platform, '/home/u', flag)).toBe(expected);
  });
});
