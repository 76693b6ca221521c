/**
 * `npm start`: builds what is stale, then runs the Electron binary on this project. The binary is
 * downloaded on first start (Electron's package does not fetch it at install); if that fails it
 * says what to do and exits 1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decideLaunch, DOWNLOAD_FAILED_MESSAGE, DOWNLOADING_MESSAGE, electronBinaryPath, type LaunchPlan } from './logic/launchPlan.ts';
import { EXPOSE_GC_SWITCH } from './logic/memoryLaunch.ts';
import { GLIBC_MALLOC_ENV } from '../proxy/app/cli/glibcMalloc.ts';

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

function planLaunch(): LaunchPlan {
  const binaryPath = electronBinaryPath(readPathTxt(), electronPackageDir, process.env.ELECTRON_OVERRIDE_DIST_PATH);
  return decideLaunch({
    electronBinaryPath: binaryPath,
    electronBinaryExists: binaryPath !== null && existsSync(binaryPath),
    outputMtimesMs: BUILD_OUTPUTS.map((output) => mtimeOrNull(join(projectRoot, output))),
    newestSourceMtimeMs: Math.max(...SOURCE_DIRS.map((source) => newestMtimeMs(join(projectRoot, source)))),
  });
}

let plan = planLaunch();
if (plan.kind === 'download_binary') {
  console.log(DOWNLOADING_MESSAGE);
  const download = spawnSync(process.execPath, [join(electronPackageDir, 'install.js')], { stdio: 'inherit' });
  plan = planLaunch();
  if (download.status !== 0 || plan.kind === 'download_binary') {
    console.error(DOWNLOAD_FAILED_MESSAGE);
    process.exit(1);
  }
}

if (plan.buildFirst) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build'], { cwd: projectRoot, stdio: 'inherit', shell: process.platform === 'win32' });
  if (build.status !== 0) {
    console.error('Airlock: the build failed (see above), so the desktop app was not started.');
    process.exit(build.status ?? 1);
  }
}

// Started with what the app would otherwise relaunch itself for (logic/memoryLaunch.ts): one start, not two.
const child = spawn(plan.electronBinaryPath, [EXPOSE_GC_SWITCH, '.', ...process.argv.slice(2)], {
  cwd: projectRoot,
  stdio: 'inherit',
  // The user's own malloc settings win.
  env: { ...GLIBC_MALLOC_ENV, ...process.env },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
