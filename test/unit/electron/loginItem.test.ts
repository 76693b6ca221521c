import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { APP_ID, linuxAutostartEntry, linuxAutostartPath, startAtLoginMethod } from '../../../electron/logic/loginItem.ts';

describe('startAtLoginMethod', () => {
  // Electron's app.setLoginItemSettings is documented for macOS and Windows only (@platform
  // darwin,win32 in electron.d.ts); on Linux it does nothing, so the tray's checkbox did nothing.
  it.each([
    ['darwin', 'electron'],
    ['win32', 'electron'],
    ['linux', 'xdg-autostart'],
  ] as const)('%s -> %s', (platform, method) => {
    expect(startAtLoginMethod(platform)).toBe(method);
  });
});

describe('linuxAutostartPath', () => {
  // XDG Autostart specification: $XDG_CONFIG_HOME/autostart, $XDG_CONFIG_HOME defaulting to ~/.config.
  it('names the entry after the app id electron-builder packages with', () => {
    const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { appId: string };
    expect(APP_ID).toBe(packageJson.appId);
  });

  it('puts the entry under $XDG_CONFIG_HOME/autostart, else ~/.config/autostart', () => {
    expect(linuxAutostartPath({ XDG_CONFIG_HOME: '/cfg' }, '/home/u', 'dev.airlock.desktop')).toBe(
      '/cfg/autostart/dev.airlock.desktop.desktop',
    );
    expect(linuxAutostartPath({}, '/home/u', 'dev.airlock.desktop')).toBe('/home/u/.config/autostart/dev.airlock.desktop.desktop');
    expect(linuxAutostartPath({ XDG_CONFIG_HOME: 'relative' }, '/home/u', 'x')).toBe('/home/u/.config/autostart/x.desktop');
  });
});

describe('linuxAutostartEntry', () => {
  it('starts the AppImage file itself (its executable lives in a mount that is gone after the run), hidden', () => {
    const entry = linuxAutostartEntry({
      productName: 'Airlock',
      execPath: '/tmp/.mount_AirlockXYZ/airlock',
      appImagePath: '/home/u/Apps/Airlock.AppImage',
      appArgs: ['--hidden'],
    });
    expect(entry).toContain('\nExec=/home/u/Apps/Airlock.AppImage --hidden\n');
    expect(entry.startsWith('[Desktop Entry]\nType=Application\nName=Airlock\n')).toBe(true);
  });

  // Desktop Entry specification, "The Exec key": reserved characters need the argument quoted, and
  // inside quotes ", `, $ and \ take a backslash; a literal % is written %%.
  it('quotes a path with spaces and escapes what the Exec key reserves', () => {
    const entry = linuxAutostartEntry({
      productName: 'Airlock',
      execPath: '/opt/My Apps/100% "air"/airlock',
      appImagePath: undefined,
      appArgs: ['--hidden'],
    });
    expect(entry).toContain('\nExec="/opt/My Apps/100%% \\\\"air\\\\"/airlock" --hidden\n');
  });
});
