import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
/** Each tree's own bench server, which starts Airlock as that commit wired it. */
export const PROXY_SERVER_PATH = 'test/bench/proxyServer.ts';

export interface BaselineTree {
  /** Where the commit is checked out. */
  dir: string;
  commit: string;
}

const git = (args: readonly string[]): string => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: 'pipe' }).trim();

/** The commit `ref` names in this repository, or an error saying how to name one. */
export function resolveCommit(ref: string): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new Error(`--baseline ${ref} names no commit here: give a commit, branch or tag that \`git log\` shows (e.g. c7ee941)`);
  }
}

/**
 * Checks `ref` out into a detached worktree in a temporary directory, with this checkout's
 * node_modules (so both sides run the same Node and packages), runs `use`, and removes the tree
 * afterwards, also when `use` throws or the bench is interrupted.
 */
export async function withBaselineTree<T>(ref: string, use: (tree: BaselineTree) => Promise<T>): Promise<T> {
  const commit = resolveCommit(ref);
  const dir = mkdtempSync(join(tmpdir(), 'airlock-baseline-'));
  let removed = false;
  const remove = (): void => {
    if (removed) return;
    removed = true;
    try {
      git(['worktree', 'remove', '--force', dir]);
    } catch {
      // Not (or no longer) a worktree: the directory and git's note of it go below.
    }
    rmSync(dir, { recursive: true, force: true });
    git(['worktree', 'prune']);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    remove();
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    git(['worktree', 'add', '--detach', dir, commit]);
    symlinkSync(realpathSync(join(REPO_ROOT, 'node_modules')), join(dir, 'node_modules'), 'dir');
    if (!existsSync(join(dir, PROXY_SERVER_PATH)))
      throw new Error(`${ref} has no ${PROXY_SERVER_PATH} to start its Airlock with: pick a commit from after the bench was added`);
    return await use({ dir, commit });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    remove();
  }
}
