/**
 * "Start at login". Electron's app.setLoginItemSettings works on macOS and Windows only (its typings
 * say @platform darwin,win32); on Linux it does nothing, so there the app writes an XDG autostart
 * entry itself, which every desktop following the XDG Autostart specification starts at login.
 */
import { isAbsolute, join } from 'node:path';

export function startAtLoginMethod(platform: NodeJS.Platform): 'electron' | 'xdg-autostart' {
  return platform === 'linux' ? 'xdg-autostart' : 'electron';
}

/** package.json's appId (a test holds them equal): the autostart entry's name. */
export const APP_ID = 'dev.airlock.desktop';

/** `$XDG_CONFIG_HOME/autostart/<appId>.desktop`; the spec ignores a relative XDG_CONFIG_HOME. */
export function linuxAutostartPath(env: Readonly<Record<string, string | undefined>>, homeDir: string, appId: string = APP_ID): string {
  const configHome = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homeDir, '.config');
  return join(configHome, 'autostart', `${appId}.desktop`);
}

export interface AutostartEntryInput {
  productName: string;
  /** process.execPath. */
  execPath: string;
  /** $APPIMAGE when running from an AppImage: execPath is then inside a mount that ends with the run. */
  appImagePath: string | undefined;
  /** The app's own arguments (the app path when unpackaged, then the hidden-at-login flag). */
  appArgs: readonly string[];
}

const EXEC_RESERVED = /[\s"'\\><~|&;$*?#()`%]/;

/** One Exec argument per the Desktop Entry spec: quoted when it holds a reserved character, % doubled. */
function execArgument(argument: string): string {
  const percentEscaped = argument.replaceAll('%', '%%');
  if (!EXEC_RESERVED.test(argument)) return percentEscaped;
  // Inside quotes ", `, $ and \ take a backslash; the file's string escaping then doubles each backslash.
  const quoted = percentEscaped.replace(/["`$\\]/g, (character) => `\\${character}`);
  return `"${quoted.replaceAll('\\', '\\\\')}"`;
}

export function linuxAutostartEntry(input: AutostartEntryInput): string {
  const command = [input.appImagePath ?? input.execPath, ...input.appArgs].map(execArgument).join(' ');
  return [
    '[Desktop Entry]',
    'Type=Application',
    `Name=${input.productName}`,
    `Exec=${command}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}
