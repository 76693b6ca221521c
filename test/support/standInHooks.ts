import { registerHooks } from 'node:module';

/**
 * Loaded with --import (NODE_OPTIONS, so the processes a test's process starts load it too):
 * 'electron' is the recording stand-in and 'keytar' the file-backed keychain, as vi.mock gives them
 * inside a test file.
 */
const standIns: Record<string, string> = {
  electron: new URL('./electronModule.ts', import.meta.url).href,
  keytar: new URL('./fileKeytar.ts', import.meta.url).href,
};

registerHooks({
  resolve(specifier, context, nextResolve) {
    const url = standIns[specifier];
    return url ? { url, shortCircuit: true } : nextResolve(specifier, context);
  },
});
