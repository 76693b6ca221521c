import { describe, expect, it } from 'vitest';
import { threadScriptUrl } from '../../../proxy/core/threadScript.ts';

describe('threadScriptUrl', () => {
  it.each([
    {
      caller: 'file:///repo/proxy/store/write/logThreadClient.ts',
      script: 'logThread',
      url: 'file:///repo/proxy/store/write/logThread.ts',
    },
    {
      caller: 'file:///app/resources/app.asar/dist-electron/main.js',
      script: 'tokenizerThread',
      url: 'file:///app/resources/app.asar/dist-electron/tokenizerThread.js',
    },
  ])('$caller -> $url', ({ caller, script, url }) => {
    expect(threadScriptUrl(caller, script).href).toBe(url);
  });
});
