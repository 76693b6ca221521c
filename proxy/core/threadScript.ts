/**
 * A worker thread's script next to the calling module (`callerUrl`, its `import.meta.url`): the
 * `.ts` source when run from source, the bundled `.js` (its own entry in the Electron build, next
 * to main.js) when the caller was bundled.
 */
export function threadScriptUrl(callerUrl: string, scriptName: string): URL {
  return new URL(`./${scriptName}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl);
}
