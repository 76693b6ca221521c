/**
 * `npm start`: builds what is stale, then runs the Electron binary on this project. Where the
 * binary was never downloaded it says so and what to do, and exits 1 (no stack trace).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decideLaunch, electronBinaryPath } from './logic/launchPlan.ts';

const projectRoot = dirname(dirname(fileURLToPath(import.meta.url)));
const electronPackageDir = join(projectRoot, 'node_modules', 'electron');

const BUILD_OUTPUTS = ['dist-electron/main.js', 'dist-electron/preload.cjs', 'renderer/dist/index.html'];
const SOURCE_DIRS = ['electron', 'proxy', 'renderer/src', 'renderer/index.html'];

function mtimeOrNull(path: string): number | null {
  return existsSync(path) ? statSync(path).mtimeMs : null;
}

function newestMtimeMs(path: string): number {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtimeMs(join(path, entry)));
  return newest;
}

function readPathTxt(): string | null {
  const pathTxt = join(electronPackageDir, 'path.txt');
  return existsSync(pathTxt) ? readFileSync(pathTxt, 'utf8') : null;
}

const binaryPath = electronBinaryPath(readPathTxt(), electronPackageDir, process.env.ELECTRON_OVERRIDE_DIST_PATH);
const plan = decideLaunch({
  electronBinaryPath: binaryPath,
  electronBinaryExists: binaryPath !== null && existsSync(binaryPath),
  outputMtimesMs: BUILD_OUTPUTS.map((output) => mtimeOrNull(join(projectRoot, output))),
  newestSourceMtimeMs: Math.max(...SOURCE_DIRS.map((source) => newestMtimeMs(join(projectRoot, source)))),
});

if (plan.kind === 'missing_binary') {
  console.error(plan.message);
  process.exit(1);
}

if (plan.buildFirst) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build'], { cwd: projectRoot, stdio: 'inherit', shell: process.platform === 'win32' });
  if (build.status !== 0) {
    console.error('Airlock: the build failed (see above), so the desktop app was not started.');
    process.exit(build.status ?? 1);
  }
}

const child = spawn(plan.electronBinaryPath, ['.', ...process.argv.slice(2)], { cwd: projectRoot, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
