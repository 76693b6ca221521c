/**
 * What `npm start` does, decided from facts gathered by electron/launch.ts: launch the Electron
 * binary (building first when an output is missing or older than the sources), or download the
 * binary first. Electron's package fetches its binary on first use, not at `npm install`.
 */
export interface LaunchFacts {
  /** Path the electron package resolved to, or null when it could not (binary never downloaded). */
  electronBinaryPath: string | null;
  electronBinaryExists: boolean;
  /** Modification times of the built outputs; null for a missing one. */
  outputMtimesMs: readonly (number | null)[];
  newestSourceMtimeMs: number;
}

export type LaunchPlan = { kind: 'download_binary' } | { kind: 'launch'; buildFirst: boolean; electronBinaryPath: string };

export const DOWNLOADING_MESSAGE = 'Airlock: downloading the Electron binary (once, about 100 MB)...';

export const DOWNLOAD_FAILED_MESSAGE = [
  'Airlock: the Electron binary could not be downloaded, so the desktop app cannot start.',
  '',
  'Electron fetches its binary the first time the app starts, which needs internet access.',
  "To try again: `npm start`, or `npx install-electron` (the electron package's own download script).",
  '',
  'To run Airlock without the desktop shell (proxy + UI in your browser):',
  '  npm run serve',
].join('\n');

export function needsBuild(outputMtimesMs: readonly (number | null)[], newestSourceMtimeMs: number): boolean {
  return outputMtimesMs.some((mtimeMs) => mtimeMs === null || mtimeMs < newestSourceMtimeMs);
}

export function decideLaunch(facts: LaunchFacts): LaunchPlan {
  if (facts.electronBinaryPath === null || !facts.electronBinaryExists) return { kind: 'download_binary' };
  return {
    kind: 'launch',
    buildFirst: needsBuild(facts.outputMtimesMs, facts.newestSourceMtimeMs),
    electronBinaryPath: facts.electronBinaryPath,
  };
}

/**
 * Where the electron package puts its binary, mirroring its own index.js but without that file's
 * side effect (it starts a download as soon as it is imported, and fails offline with a stack).
 */
export function electronBinaryPath(
  pathTxtContent: string | null,
  electronPackageDir: string,
  overrideDistPath: string | undefined,
): string | null {
  const relativeExecutable = pathTxtContent?.trim() || null;
  if (overrideDistPath) return joinPath(overrideDistPath, relativeExecutable ?? 'electron');
  if (relativeExecutable === null) return null;
  return joinPath(electronPackageDir, 'dist', relativeExecutable);
}

function joinPath(...parts: string[]): string {
  return parts.join('/').replace(/\/{2,}/g, '/');
}
