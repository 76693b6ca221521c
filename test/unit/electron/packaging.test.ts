import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { TRAY_ICON_STATES } from '../../../electron/logic/trayState.ts';

const require = createRequire(import.meta.url);
const root = new URL('../../../', import.meta.url);
const packageJson = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { appId: string; productName: string };
/** The parts of build/electron-builder.config.cjs this test reads. */
interface PlatformBuild {
  target: string[];
  icon: string;
}
interface BuilderConfig {
  appId: string;
  productName: string;
  files: string[];
  asarUnpack: string[];
  mac: PlatformBuild & { hardenedRuntime: boolean; entitlements: string };
  win: PlatformBuild;
  linux: PlatformBuild;
  deb: { depends: string[] };
  electronFuses?: Record<string, boolean>;
}
const config = require('../../../build/electron-builder.config.cjs') as BuilderConfig;

function pngSizePx(relativePath: string): { width: number; height: number } {
  const bytes = readFileSync(new URL(relativePath, root));
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('electron-builder config', () => {
  it('takes the app id and product name from package.json', () => {
    expect(config.appId).toBe(packageJson.appId);
    expect(config.productName).toBe(packageJson.productName);
  });

  it('ships the bundles, the UI and the tray icons, and unpacks keytar from asar', () => {
    expect(config.files).toEqual(expect.arrayContaining(['dist-electron/**/*', 'renderer/dist/**/*', 'build/icons/tray/**/*']));
    expect(config.asarUnpack).toContain('node_modules/keytar/**/*.node');
  });

  it.each([
    ['mac', ['dmg']],
    ['win', ['nsis']],
    ['linux', ['AppImage', 'deb']],
  ] as const)('%s targets %j', (platform, targets) => {
    expect(config[platform].target).toEqual(targets);
  });

  it('signs macOS with the hardened runtime and an entitlements file naming the same app id for the keychain', () => {
    expect(config.mac.hardenedRuntime).toBe(true);
    const plist = readFileSync(new URL(config.mac.entitlements, root), 'utf8');
    expect(plist).toContain('<key>keychain-access-groups</key>');
    expect(plist).toContain(`$(AppIdentifierPrefix)${packageJson.appId}</string>`);
  });

  // The keychain trusts the signed app: an app any local process can run as plain Node, or hand
  // code through NODE_OPTIONS or --inspect, gives that process the gateway keys without a prompt
  // (Electron's fuses tutorial; electron-builder's electronFuses option sets them at packaging).
  it('flips the fuses that would let another program run its own code as Airlock', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('makes the deb depend on libsecret (keytar needs it)', () => {
    expect(config.deb.depends).toContain('libsecret-1-0');
  });
});

describe('icons', () => {
  it.each([16, 32, 48, 64, 128, 256, 512, 1024])('app icon %ipx exists at its size', (sizePx) => {
    expect(pngSizePx(`build/icons/png/${sizePx}x${sizePx}.png`)).toEqual({ width: sizePx, height: sizePx });
  });

  it.each(TRAY_ICON_STATES.flatMap((state) => [`tray-${state}`, `tray-${state}Template`]))('tray icon %s at 16 and 32 px', (name) => {
    expect(pngSizePx(`build/icons/tray/${name}.png`)).toEqual({ width: 16, height: 16 });
    expect(pngSizePx(`build/icons/tray/${name}@2x.png`)).toEqual({ width: 32, height: 32 });
  });

  it('points every platform at an existing icon', () => {
    for (const icon of [config.mac.icon, config.win.icon, config.linux.icon]) expect(existsSync(new URL(icon, root))).toBe(true);
  });
});

describe('the Electron bundles (electron/vite.config.ts)', () => {
  // threadScriptUrl finds a worker thread's or the keychain helper's script beside main.js by its source's name.
  it('builds every entry, each named after its source, the keychain helper among them', async () => {
    const { default: viteConfig } = await import('../../../electron/vite.config.ts');
    const environments = Object.entries(viteConfig.environments ?? {});
    const outputs = environments.map(([, environment]) => {
      const lib = environment.build?.lib;
      if (!lib || typeof lib.entry !== 'string' || typeof lib.fileName !== 'function') throw new Error('an entry without a lib build');
      return { entry: lib.entry, fileName: lib.fileName('es', 'entry') };
    });
    for (const { entry, fileName } of outputs) {
      expect(existsSync(new URL(entry, root))).toBe(true);
      expect(fileName.replace(/\.c?js$/, '')).toBe(entry.replace(/^.*\//, '').replace(/\.ts$/, ''));
    }
    expect(outputs).toContainEqual({ entry: 'electron/keychainUtilityProcess.ts', fileName: 'keychainUtilityProcess.js' });

    const built: unknown[] = [];
    const builderEnvironments = Object.fromEntries(environments.map(([name]) => [name, { name }]));
    await viteConfig.builder?.buildApp?.({
      environments: builderEnvironments,
      build: async (environment: unknown) => void built.push(environment),
    } as never);
    expect(built).toEqual(expect.arrayContaining(Object.values(builderEnvironments)));
    expect(built).toHaveLength(environments.length);
  });
});
