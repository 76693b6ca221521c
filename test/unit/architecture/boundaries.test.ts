import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importSpecifiers, importTarget, listSourceFiles, scanBoundaries, violationsIn } from './importScanner.ts';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));
const LAYERS = ['proxy', 'renderer', 'electron'];

describe('layer boundaries of the real tree', () => {
  it('scans the files it should', () => {
    const files = listSourceFiles(projectRoot, LAYERS);
    expect(files).toContain('electron/main.ts');
    expect(files).toContain('proxy/spend/constants.ts');
    expect(files.some((file) => file.includes('node_modules') || file.startsWith('renderer/dist/'))).toBe(false);
  });

  it('has no import crossing a boundary', () => {
    expect(scanBoundaries(projectRoot, LAYERS)).toEqual([]);
  });
});

describe('importSpecifiers', () => {
  it('finds every kind of module reference and ignores strings and comments', () => {
    const source = [
      "import { app } from 'electron';",
      "import type { Profile } from '../contracts/profile.ts';",
      "import './side-effect.ts';",
      "export { x } from './x.ts';",
      "export * from './all.ts';",
      "const lazy = await import('./lazy.ts');",
      "const native = require('keytar');",
      "type Win = import('electron').BrowserWindow;",
      "// import { nope } from 'electron-in-a-comment';",
      'const text = "import x from \'electron-in-a-string\'";',
    ].join('\n');
    expect(importSpecifiers(source, 'proxy/a.ts').sort()).toEqual(
      ['electron', '../contracts/profile.ts', './side-effect.ts', './x.ts', './all.ts', './lazy.ts', 'keytar', 'electron'].sort(),
    );
  });

  it('parses TSX', () => {
    expect(
      importSpecifiers("import { api } from '../api/client.ts';\nexport const A = () => <div>{api.name}</div>;", 'renderer/src/A.tsx'),
    ).toEqual(['../api/client.ts']);
  });
});

describe('importTarget', () => {
  it.each([
    ['electron', 'proxy/a.ts', { kind: 'package', name: 'electron' }],
    ['electron/main', 'proxy/a.ts', { kind: 'package', name: 'electron' }],
    ['@scope/pkg/sub', 'proxy/a.ts', { kind: 'package', name: '@scope/pkg' }],
    ['node:fs', 'proxy/a.ts', { kind: 'package', name: 'node:fs' }],
    ['../../electron/logic/csp.ts', 'proxy/server/x.ts', { kind: 'file', path: 'electron/logic/csp.ts' }],
    ['./b.ts', 'renderer/src/a.tsx', { kind: 'file', path: 'renderer/src/b.ts' }],
  ])('%s from %s', (specifier, importer, expected) => {
    expect(importTarget(specifier, importer)).toEqual(expected);
  });
});

describe('violationsIn: the scanner catches synthetic violations', () => {
  it.each([
    ['proxy/server/a.ts', "import { app } from 'electron';", 'proxy/ never imports electron'],
    ['proxy/server/a.ts', "const { app } = require('electron');", 'proxy/ never imports electron'],
    ['proxy/server/a.ts', "import { x } from '../../electron/logic/csp.ts';", 'proxy/ never imports electron/ or renderer/'],
    ['proxy/server/a.ts', "export * from '../../renderer/src/api/client.ts';", 'proxy/ never imports electron/ or renderer/'],
    ['renderer/src/a.tsx', "import { ipcRenderer } from 'electron';", 'renderer/ never imports electron'],
    ['renderer/src/a.tsx', "type B = import('../../electron/preload.ts').X;", 'renderer/ never imports electron/'],
    [
      'renderer/src/a.tsx',
      "import { startServer } from '../../proxy/http/startServer.ts';",
      'renderer/ imports from proxy/ only proxy/contracts/',
    ],
    ['renderer/src/a.tsx', "const m = await import('../../proxy/contractsX/a.ts');", 'renderer/ imports from proxy/ only proxy/contracts/'],
    ['electron/main.ts', "import { App } from '../renderer/src/App.tsx';", 'electron/ never imports renderer/'],
    [
      'proxy/protocols/chat/a.ts',
      "import type { ClientBody } from '../../forward/requestBody.ts';",
      'proxy/protocols/ imports from proxy/ only contracts/, core/ and itself',
    ],
    [
      'proxy/protocols/a.ts',
      "import { tokenEstimator } from '../spend/tokenEstimator.ts';",
      'proxy/protocols/ imports from proxy/ only contracts/, core/ and itself',
    ],
  ])('%s: %s', (file, source, rule) => {
    expect(violationsIn(file, importSpecifiers(source, file)).map((violation) => violation.rule)).toEqual([rule]);
  });

  it.each([
    ['renderer/src/a.tsx', "import type { AirlockBridge } from '../../proxy/contracts/bridge.ts';"],
    ['electron/main.ts', "import { app } from 'electron';\nimport { startServer } from '../proxy/http/startServer.ts';"],
    ['proxy/server/a.ts', "import express from 'express';\nimport { x } from '../contracts/errors.ts';"],
    ['proxy/server/a.ts', "const note = 'electron';"],
    ['proxy/protocols/chat/a.ts', "import { x } from '../../core/errorClass.ts';\nimport { y } from '../sse.ts';"],
    ['proxy/forward/a.ts', "import { routeFor } from '../protocols/registry.ts';"],
  ])('%s may: %s', (file, source) => {
    expect(violationsIn(file, importSpecifiers(source, file))).toEqual([]);
  });
});
