import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig, type EnvironmentOptions } from 'vite';

/**
 * Bundles the Electron main process (ESM: Electron 45 loads an ESM main, and package.json says
 * "type": "module"), the request log's writer and reader, the tokenizer's and the translation threads, the keychain's
 * utility process and the preload (CommonJS: a sandboxed preload cannot be an ES module) into
 * dist-electron/. Runtime dependencies stay external: electron-builder ships them in node_modules,
 * and native or CommonJS ones (keytar, express) must not be inlined into an ES module.
 */
const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies?: Record<string, string>;
};
const externalPackages = ['electron', ...Object.keys(packageJson.dependencies ?? {})];
const isExternal = (id: string): boolean =>
  id.startsWith('node:') || builtinModules.includes(id) || externalPackages.some((name) => id === name || id.startsWith(`${name}/`));

function electronEntry(entry: string, format: 'es' | 'cjs', fileName: string, emptyOutDir: boolean): EnvironmentOptions {
  return {
    consumer: 'server',
    build: {
      outDir: 'dist-electron',
      emptyOutDir,
      target: 'node22',
      minify: false,
      sourcemap: true,
      lib: { entry, formats: [format], fileName: () => fileName },
      rolldownOptions: { external: isExternal },
    },
  };
}

export default defineConfig({
  root: projectRoot,
  environments: {
    main: electronEntry('electron/main.ts', 'es', 'main.js', true),
    preload: electronEntry('electron/preload.ts', 'cjs', 'preload.cjs', false),
    // The request log's writer thread: a script of its own, found next to main.js (logThreadClient.ts).
    logThread: electronEntry('proxy/store/write/logThread.ts', 'es', 'logThread.js', false),
    // The request log's reader thread, for the window's reads, found next to main.js the same way (logReader.ts).
    readerThread: electronEntry('proxy/store/read/readerThread.ts', 'es', 'readerThread.js', false),
    // The tokenizer's thread, found next to main.js the same way (tokenEstimator.ts).
    tokenizerThread: electronEntry('proxy/spend/tokenizerThread.ts', 'es', 'tokenizerThread.js', false),
    // The thread that translates heavy request bodies, the same way (translationThreadClient.ts).
    translationThread: electronEntry('proxy/forward/translation/translationThread.ts', 'es', 'translationThread.js', false),
    // The keychain's utility process, the same way (keychainUtility.ts); keytar stays external, loaded there.
    keychainUtility: electronEntry('electron/keychainUtilityProcess.ts', 'es', 'keychainUtilityProcess.js', false),
  },
  builder: {
    // In order: the main build empties dist-electron/ first.
    async buildApp(builder) {
      for (const name of ['main', 'preload', 'logThread', 'readerThread', 'tokenizerThread', 'translationThread', 'keychainUtility']) {
        const environment = builder.environments[name];
        if (environment) await builder.build(environment);
      }
    },
  },
});
