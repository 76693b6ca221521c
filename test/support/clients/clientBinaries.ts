import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CliCommand } from './runCli.ts';

const require = createRequire(import.meta.url);

interface PackageManifest {
  version: string;
  bin: Record<string, string>;
}

function manifestOf(packageName: string): { dir: string; manifest: PackageManifest } {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  return { dir: dirname(manifestPath), manifest: JSON.parse(readFileSync(manifestPath, 'utf8')) as PackageManifest };
}

function binPath(packageName: string, binName: string): string {
  const { dir, manifest } = manifestOf(packageName);
  const relativePath = manifest.bin[binName];
  if (relativePath === undefined) throw new Error(`${packageName} has no "${binName}" bin`);
  return join(dir, relativePath);
}

export function installedVersion(packageName: string): string {
  return manifestOf(packageName).manifest.version;
}

/** Claude Code ships a native executable; its postinstall links the platform package's binary into place. */
export function claudeCodeCli(): CliCommand {
  return { command: binPath('@anthropic-ai/claude-code', 'claude'), args: [] };
}

/** Codex's bin is a Node launcher for the native binary in its platform package; run it with this Node. */
export function codexCli(): CliCommand {
  return { command: process.execPath, args: [binPath('@openai/codex', 'codex')] };
}

/** Continue's CLI is a Node script; run it with this Node. */
export function continueCli(): CliCommand {
  return { command: process.execPath, args: [binPath('@continuedev/cli', 'cn')] };
}
