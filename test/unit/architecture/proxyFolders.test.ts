import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importSpecifiers } from './importScanner.ts';
import { type FolderEdge, folderCycles, folderEdgesIn, proxyFolderOf, ruleViolations, scanProxyFolders } from './proxyFolders.ts';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));

describe('proxy/ folder rules of the real tree', () => {
  const edges = scanProxyFolders(projectRoot);

  it('sees the request path lean on protocols and contracts', () => {
    expect(edges.some((edge) => edge.from === 'forward' && edge.to === 'protocols')).toBe(true);
    expect(edges.some((edge) => edge.from === 'app' && edge.to === 'contracts')).toBe(true);
  });

  it('breaks no folder rule', () => {
    expect(ruleViolations(edges)).toEqual([]);
  });

  it('has no cycle between folders', () => {
    expect(folderCycles(edges)).toEqual([]);
  });
});

const edgesOf = (file: string, source: string): FolderEdge[] => folderEdgesIn(file, importSpecifiers(source, file));

describe('ruleViolations: synthetic imports', () => {
  it.each([
    [
      'proxy/protocols/chat/a.ts',
      "import { x } from '../../forward/relay.ts';",
      'proxy/protocols/ imports only contracts/, core/, protocols/',
    ],
    ['proxy/protocols/a.ts', "import { x } from '../store/requestLog.ts';", 'proxy/protocols/ imports only contracts/, core/, protocols/'],
    ['proxy/forward/a.ts', "import { x } from '../http/startServer.ts';", 'proxy/forward/ never imports http/ or app/ or store/'],
    ['proxy/forward/a.ts', "import type { X } from '../app/startAirlock.ts';", 'proxy/forward/ never imports http/ or app/ or store/'],
    ['proxy/store/write/a.ts', "import { x } from '../../forward/requestId.ts';", 'proxy/store/ never imports forward/ or http/ or app/'],
    ['proxy/spend/a.ts', "import { x } from '../forward/clientPath.ts';", 'proxy/spend/ never imports forward/ or http/ or app/'],
    ['proxy/contracts/a.ts', "import { x } from '../core/redact.ts';", 'proxy/contracts/ imports only contracts/'],
    ['proxy/core/a.ts', "import { x } from '../spend/cost.ts';", 'proxy/core/ imports only contracts/, core/'],
    ['proxy/http/a.ts', "import { x } from '../app/secrets/secretStore.ts';", 'proxy/http/ never imports app/'],
  ])('%s: %s', (file, source, rule) => {
    expect(ruleViolations(edgesOf(file, source))).toEqual([`${rule}: ${file} imports ${source.split("'")[1]}`]);
  });

  it.each([
    ['proxy/protocols/anthropic/a.ts', "import { x } from '../chat/usage.ts';\nimport type { Y } from '../../contracts/usage.ts';"],
    ['proxy/forward/a.ts', "import { x } from '../protocols/registry.ts';\nimport { y } from '../spend/cost.ts';"],
    ['proxy/app/a.ts', "import { x } from '../http/startServer.ts';\nimport { y } from '../store/requestLog.ts';"],
    ['test/unit/a.test.ts', "import { x } from '../../proxy/forward/forward.ts';"],
  ])('%s may: %s', (file, source) => {
    expect(ruleViolations(edgesOf(file, source))).toEqual([]);
  });
});

describe('folderCycles', () => {
  const edge = (from: string, to: string): FolderEdge => ({ from, to, file: `proxy/${from}/x.ts`, specifier: `../${to}/y.ts` });

  it('finds a two-folder and a three-folder cycle, each once', () => {
    const cycles = folderCycles([edge('a', 'b'), edge('b', 'a'), edge('c', 'd'), edge('d', 'e'), edge('e', 'c'), edge('a', 'c')]);
    expect(cycles).toHaveLength(2);
    expect(cycles).toContainEqual(['a', 'b', 'a']);
    expect(cycles.map((cycle) => [...cycle].sort().join())).toContainEqual(['c', 'c', 'd', 'e'].join());
  });

  it('is empty for a layered graph', () => {
    expect(folderCycles([edge('app', 'forward'), edge('forward', 'protocols'), edge('app', 'protocols')])).toEqual([]);
  });
});

describe('proxyFolderOf', () => {
  it.each([
    ['proxy/forward/exchange.ts', 'forward'],
    ['proxy/store/write/logThread.ts', 'store'],
    ['proxy/README.md', null],
    ['renderer/src/App.tsx', null],
  ])('%s → %s', (path, folder) => {
    expect(proxyFolderOf(path)).toBe(folder);
  });
});
