import type { ConnectToolId } from '../../../contracts/connect.ts';
import type { ToolAdapter } from '../toolAdapter.ts';
import { aiderAdapter } from './aider.ts';
import { claudeCodeAdapter } from './claudeCode.ts';
import { clineAdapter } from './cline.ts';
import { codexAdapter } from './codex.ts';
import { continueAdapter } from './continueDev.ts';
import { openCodeAdapter } from './openCode.ts';

/** Every tool Connect can set up, in the order the window and the CLI list them. */
export const TOOL_ADAPTERS: readonly ToolAdapter[] = [
  claudeCodeAdapter,
  codexAdapter,
  openCodeAdapter,
  aiderAdapter,
  continueAdapter,
  clineAdapter,
];

export function adapterFor(id: ConnectToolId): ToolAdapter {
  const adapter = TOOL_ADAPTERS.find((candidate) => candidate.id === id);
  if (!adapter) throw new Error(`no adapter for ${id}`);
  return adapter;
}
