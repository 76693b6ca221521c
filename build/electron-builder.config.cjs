// electron-builder configuration for `npm run dist` (builds for the current platform).
// Version, product name and app id live in package.json only; this file reads them from there.
const packageJson = require('../package.json');

/** @type {import('electron-builder').Configuration} */
module.exports = {
  appId: packageJson.appId,
  productName: packageJson.productName,
  copyright: `Copyright © ${new Date().getFullYear()} ${packageJson.productName} contributors`,
  directories: { output: 'release', buildResources: 'build' },
  // The proxy is bundled into dist-electron/main.js; its runtime dependencies come from node_modules.
  files: ['package.json', 'dist-electron/**/*', 'renderer/dist/**/*', 'build/icons/tray/**/*', '!**/*.map'],
  // Native modules cannot be loaded from inside the asar archive. keytar is loaded in the keychain's
  // utility process (dist-electron/keychainUtilityProcess.js, in the asar: a utility process reads
  // the asar as the main process does), which finds its .node here.
  asarUnpack: ['node_modules/keytar/**/*.node'],
  npmRebuild: true,
  // The keychain trusts the signed app, so nothing may run other code as it: no ELECTRON_RUN_AS_NODE,
  // no NODE_OPTIONS (--require; the fuse also drops NODE_EXTRA_CA_CERTS, so a gateway behind a
  // private CA is reached through the OS certificate store instead, which the proxy loads the first
  // time a gateway's certificate has an issuer Node does not know: proxy/core/osCaStore.ts) and no
  // --inspect, and the app only from its asar. Nothing in the app runs itself as Node: its threads
  // are worker_threads, and its keychain helper a utilityProcess (which Electron's fuses tutorial
  // recommends where runAsNode is off: it needs no ELECTRON_RUN_AS_NODE). Asar integrity validation is left off until a signed build has been checked
  // with it (a wrong hash stops the app from starting).
  electronFuses: {
    runAsNode: false,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    onlyLoadAppFromAsar: true,
    enableCookieEncryption: true,
    grantFileProtocolExtraPrivileges: false,
  },
  mac: {
    category: 'public.app-category.developer-tools',
    target: ['dmg'],
    icon: 'build/icons/png/1024x1024.png',
    hardenedRuntime: true,
    gatekeeperAssess: false,
    entitlements: 'build/entitlements.mac.plist',
    entitlementsInherit: 'build/entitlements.mac.plist',
  },
  dmg: { title: `${packageJson.productName} ${packageJson.version}` },
  win: { target: ['nsis'], icon: 'build/icons/png/256x256.png' },
  nsis: { oneClick: false, perMachine: false, allowToChangeInstallationDirectory: true },
  linux: {
    target: ['AppImage', 'deb'],
    icon: 'build/icons/png',
    category: 'Development',
    synopsis: packageJson.description,
  },
  // keytar talks to the Secret Service through libsecret.
  deb: { depends: ['libsecret-1-0', 'libnotify4', 'libxtst6', 'libnss3'] },
};
