import path from 'node:path';

/** Electron derives `app.getPath('userData')` from the product name; the CLI must find the same directory. */
export const PRODUCT_NAME = 'Airlock';

/**
 * Where the profile file lives: `--data-dir`, then `AIRLOCK_DATA_DIR`, else the directory Electron's
 * `app.getPath('userData')` gives for "Airlock" on this platform, so the app and `airlock serve`
 * share one file. Pure: the caller passes the environment, platform and home directory.
 */
export function resolveDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, homedir: string, flag?: string): string {
  const explicit = nonEmpty(flag) ?? nonEmpty(env.AIRLOCK_DATA_DIR);
  if (explicit) return explicit;
  switch (platform) {
    case 'win32':
      return path.win32.join(nonEmpty(env.APPDATA) ?? path.win32.join(homedir, 'AppData', 'Roaming'), PRODUCT_NAME);
    case 'darwin':
      return path.posix.join(homedir, 'Library', 'Application Support', PRODUCT_NAME);
    default:
      return path.posix.join(nonEmpty(env.XDG_CONFIG_HOME) ?? path.posix.join(homedir, '.config'), PRODUCT_NAME);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
