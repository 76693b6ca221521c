/**
 * What `npm start` does, decided from facts gathered by electron/launch.ts: launch the Electron
 * binary (building first when an output is missing or older than the sources), or explain why it
 * cannot. Without the binary nothing is built: the message is what the user needs.
 */
export interface LaunchFacts {
  /** Path the electron package resolved to, or null when it could not (binary never downloaded). */
  electronBinaryPath: string | null;
  electronBinaryExists: boolean;
  /** Modification times of the built outputs; null for a missing one. */
  outputMtimesMs: readonly (number | null)[];
  newestSourceMtimeMs: number;
}

export type LaunchPlan = { kind: 'missing_binary'; message: string } | { kind: 'launch'; buildFirst: boolean; electronBinaryPath: string };

export const MISSING_BINARY_MESSAGE = [
  'Airlock: the Electron binary is not installed, so the desktop app cannot start.',
  '',
  'This happens when npm install ran with ELECTRON_SKIP_BINARY_DOWNLOAD=1 or without internet access.',
  'To fix it, on a machine that can reach the internet:',
  '  npm install                         (without ELECTRON_SKIP_BINARY_DOWNLOAD), or',
  '  npx install-electron                (runs the electron package\'s own download script)',
  '',
  'To run Airlock without the desktop shell (proxy + UI in your browser):',
  '  npm run serve',
].join('\n');

export function needsBuild(outputMtimesMs: readonly (number | null)[], newestSourceMtimeMs: number): boolean {
  return outputMtimesMs.some((mtimeMs) => mtimeMs === null || mtimeMs < newestSourceMtimeMs);
}

export function decideLaunch(facts: LaunchFacts): LaunchPlan {
  if (facts.electronBinaryPath === null || !facts.electronBinaryExists) return { kind: 'missing_binary', message: MISSING_BINARY_MESSAGE };
  return {
    kind: 'launch',
    buildFirst: needsBuild(facts.outputMtimesMs, facts.newestSourceMtimeMs),
    electronBinaryPath: facts.electronBinaryPath,
  };
}

/**
 * Where the electron package puts its binary, mirroring its own index.js but without that file's
 * side effect (it starts a download when the binary is missing, which fails offline with a stack).
 */
export function electronBinaryPath(pathTxtContent: string | null, electronPackageDir: string, overrideDistPath: string | undefined): string | null {
  const relativeExecutable = pathTxtContent?.trim() || null;
  if (overrideDistPath) return joinPath(overrideDistPath, relativeExecutable ?? 'electron');
  if (relativeExecutable === null) return null;
  return joinPath(electronPackageDir, 'dist', relativeExecutable);
}

function joinPath(...parts: string[]): string {
  return parts.join('/').replace(/\/{2,}/g, '/');
}
