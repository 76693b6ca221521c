import { describe, expect, it } from 'vitest';
import { mainWindowOptions, secureWebPreferences } from '../../../electron/logic/windowOptions.ts';

describe('window security switches', () => {
  const preferences = mainWindowOptions({
    preloadPath: '/app/dist-electron/preload.cjs',
    productName: 'Airlock',
    devToolsEnabled: false,
  }).webPreferences;

  it.each([
    ['contextIsolation', true],
    ['sandbox', true],
    ['nodeIntegration', false],
    ['nodeIntegrationInWorker', false],
    ['nodeIntegrationInSubFrames', false],
    ['webSecurity', true],
    ['allowRunningInsecureContent', false],
    ['webviewTag', false],
    ['experimentalFeatures', false],
    ['navigateOnDragDrop', false],
  ] as const)('%s is %s', (name, expected) => {
    expect(preferences?.[name]).toBe(expected);
  });

  it('loads the given preload', () => {
    expect(preferences?.preload).toBe('/app/dist-electron/preload.cjs');
  });

  it.each([true, false])('devtools follow the flag (%s)', (enabled) => {
    expect(secureWebPreferences('/p.cjs', enabled).devTools).toBe(enabled);
  });

  it('waits for ready-to-show before showing', () => {
    expect(mainWindowOptions({ preloadPath: '/p.cjs', productName: 'Airlock', devToolsEnabled: true }).show).toBe(false);
  });
});
