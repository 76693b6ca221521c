import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  existsSync,
  readdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectService } from '../../../../proxy/app/connect/connectService.ts';
import { ConnectError } from '../../../../proxy/app/connect/toolAdapter.ts';
import { openConfigStore, type ConfigStore } from '../../../../proxy/app/profiles/configStore.ts';
import { addProfile } from '../../../../proxy/app/profiles/configMutations.ts';
import { clientTokenAccount, gatewayKeyAccount } from '../../../../proxy/contracts/secretStore.ts';
import { findTokenRecord } from '../../../../proxy/http/clientTokens.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';

const PROXY_URL = 'http://127.0.0.1:8642';
const CLAUDE_SETTINGS =
  '{\n  // mine\n  "model": "opus",\n  "env": {\n    "ANTHROPIC_BASE_URL": "https://gw.example.com",\n    "ANTHROPIC_AUTH_TOKEN": "SENTINEL"\n  }\n}\n'.replace(
    'SENTINEL',
    SENTINEL_KEY,
  );

let root: string;
let homeDir: string;
let dataDir: string;
let store: ConfigStore;
let secrets: ReturnType<typeof memorySecretStore>;
let service: ConnectService;
let clock: number;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'airlock-connect-'));
  homeDir = path.join(root, 'home');
  dataDir = path.join(root, 'data');
  mkdirSync(homeDir);
  mkdirSync(dataDir);
  store = openConfigStore(dataDir);
  secrets = memorySecretStore();
  clock = Date.UTC(2026, 10, 26, 1, 2, 3);
  service = new ConnectService({
    homeDir,
    env: {},
    dataDir,
    config: store,
    secrets,
    proxyUrl: () => PROXY_URL,
    nowMs: () => (clock += 1000),
  });
});
afterEach(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});

function writeHome(relative: string, text: string): string {
  const file = path.join(homeDir, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('ConnectService against real files in a temporary HOME', () => {
  it('lists every tool, detecting only those whose config exists', async () => {
    writeHome('.aider.conf.yml', '# empty\n');
    const { tools } = await service.list();
    expect(tools.map((tool) => [tool.id, tool.detected, tool.connected])).toEqual([
      ['claude-code', false, false],
      ['codex', false, false],
      ['opencode', false, false],
      ['aider', true, false],
      ['continue', false, false],
      ['cline', false, false],
    ]);
  });

  it('reports the model each tool asks for now, and none for a tool that would fall back to its built-in default', async () => {
    // A tool without a model of its own asks the gateway for its built-in id (Codex's OpenAI model, Claude Code's
    // claude-*, aider's default), which a gateway without that model answers 404: the window must know which.
    writeHome('.claude/settings.json', CLAUDE_SETTINGS);
    writeHome('.codex/config.toml', 'model_provider = "airlock"\n');
    writeHome('.aider.conf.yml', 'model: openai/gw-model\n');
    writeHome('.config/opencode/opencode.json', '{ "model": "airlock/gw-other" }\n');
    const { tools } = await service.list();
    expect(tools.map((tool) => [tool.id, tool.model])).toEqual([
      ['claude-code', 'opus'],
      ['codex', null],
      ['opencode', 'gw-other'],
      ['aider', 'gw-model'],
      ['continue', null],
      ['cline', null],
    ]);
    // ANTHROPIC_MODEL in the env block wins over the settings' model, as in Claude Code.
    writeHome('.claude/settings.json', '{ "model": "opus", "env": { "ANTHROPIC_MODEL": "gw-claude" } }\n');
    expect((await service.list()).tools[0]!.model).toBe('gw-claude');
  });

  it('plans without writing anything, the new token masked in the diff', async () => {
    const plan = await service.plan('codex', { model: 'gpt-5' });
    expect(plan).toMatchObject({ tool: 'codex', tokenName: 'codex', tokenCreated: true });
    expect(plan.changes.map((change) => [path.basename(change.path), change.created])).toEqual([
      ['config.toml', true],
      ['.env', true],
    ]);
    expect(plan.changes[1]!.diff).toContain('+AIRLOCK_API_KEY=<new client token "codex">');
    expect(plan.changes.map((change) => change.diff).join('')).not.toMatch(/alk_[A-Za-z0-9_-]{20}/);
    expect(existsSync(path.join(homeDir, '.codex'))).toBe(false);
    expect(store.snapshot().clientTokens).toEqual([]);
  });

  it('applies with a token made for the tool, keeps it in the keychain, then undo deletes the files it created', async () => {
    const applied = await service.apply('codex', { model: 'gpt-5' });
    const envText = readFileSync(path.join(homeDir, '.codex/.env'), 'utf8');
    const token = /^AIRLOCK_API_KEY=(\S+)$/m.exec(envText)![1]!;
    expect(findTokenRecord(token, store.snapshot().clientTokens)?.name).toBe('codex');
    expect(secrets.entries.get(clientTokenAccount('codex'))).toBe(token);
    expect(statSync(path.join(homeDir, '.codex/.env')).mode & 0o077).toBe(0);
    const listed = (await service.list()).tools.find((tool) => tool.id === 'codex')!;
    expect(listed).toMatchObject({ detected: true, connected: true, tokenName: 'codex', backups: [{ id: applied.backupId }] });

    // A second setup reuses the same token rather than minting another, and with nothing to change writes no backup.
    expect(await service.plan('codex')).toMatchObject({ tokenName: 'codex', tokenCreated: false });
    expect(await service.apply('codex', { model: 'gpt-5' })).toMatchObject({ tokenCreated: false, backupId: null });
    expect((await service.list()).tools.find((tool) => tool.id === 'codex')!.backups).toHaveLength(1);

    const undone = await service.undo('codex');
    expect(undone.removedFiles.map((file) => path.basename(file)).sort()).toEqual(['.env', 'config.toml']);
    expect(existsSync(path.join(homeDir, '.codex/config.toml'))).toBe(false);
    await expect(service.undo('codex')).rejects.toThrow(/nothing to undo/);
  });

  it('undo restores the exact old text, and refuses when the file changed since', async () => {
    const original = '# keep this\nmodel = "o3"\n';
    const file = writeHome('.codex/config.toml', original);
    await service.apply('codex');
    expect(readFileSync(file, 'utf8')).toContain('# keep this');
    await service.undo('codex');
    expect(readFileSync(file, 'utf8')).toBe(original);

    await service.apply('codex');
    // The user changed a line Airlock wrote: taking it out would lose their change.
    const edited = readFileSync(file, 'utf8').replace('env_key = "AIRLOCK_API_KEY"', 'env_key = "MY_OWN_KEY"');
    writeFileSync(file, edited);
    const refusal = await service.undo('codex').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ConnectError);
    expect((refusal as ConnectError).message).toContain(
      'model_providers.airlock.env_key was changed after Airlock set it to "AIRLOCK_API_KEY" (it is now "MY_OWN_KEY")',
    );
    expect(readFileSync(file, 'utf8')).toBe(edited);
    expect(existsSync(path.join(homeDir, '.codex/.env'))).toBe(true);
  });

  it('undo takes out only what Airlock wrote when the tool or the user changed the file since', async () => {
    const original = '# keep this\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "npx"\n';
    const file = writeHome('.codex/config.toml', original);
    await service.apply('codex', { model: 'gpt-5' });
    // Codex's TUI records a directory the user trusts in config.toml (codex-rs config/edit.rs
    // SetProjectTrustLevel, openai/codex#36960), and the user renamed their MCP server's command.
    const trusted = '\n[projects."/home/u/my repo"]\ntrust_level = "trusted"\n';
    writeFileSync(file, `${readFileSync(file, 'utf8').replace('command = "npx"', 'command = "bunx"')}${trusted}`);

    const undone = await service.undo('codex');
    expect(readFileSync(file, 'utf8')).toBe(`${original.replace('command = "npx"', 'command = "bunx"')}${trusted}`);
    expect(undone.restoredFiles).toEqual([file]);
    expect(undone.removedFiles).toEqual([path.join(homeDir, '.codex/.env')]);
  });

  it('imports a key found in the file: keychain profile, the key gone from the file, the backup and every preview', async () => {
    const file = writeHome('.claude/settings.json', CLAUDE_SETTINGS);
    const listed = (await service.list()).tools.find((tool) => tool.id === 'claude-code')!;
    expect(listed.importCandidate).toEqual({
      baseUrl: 'https://gw.example.com',
      keyLastFour: SENTINEL_KEY.slice(-4),
      location: 'env.ANTHROPIC_AUTH_TOKEN',
    });
    expect(findSentinel(JSON.stringify(listed))).toBeNull();

    const plan = await service.plan('claude-code', { importKey: true });
    expect(findSentinel(JSON.stringify(plan))).toBeNull();
    expect(plan.changes[0]!.diff).toContain(`<gateway key …${SENTINEL_KEY.slice(-4)}>`);

    const applied = await service.apply('claude-code', { importKey: true });
    expect(applied.importProfileId).toBe('gw-example-com');
    const profile = store.snapshot().profiles.find((candidate) => candidate.id === 'gw-example-com');
    expect(profile?.baseUrl).toBe('https://gw.example.com/v1');
    expect(secrets.entries.get(gatewayKeyAccount('gw-example-com'))).toBe(SENTINEL_KEY);
    const token = store.snapshot().clientTokens.find((record) => record.name === 'claude-code');
    expect(token?.profileId).toBe('gw-example-com');
    const written = readFileSync(file, 'utf8');
    expect(findSentinel(written)).toBeNull();
    expect(written).toContain('// mine');
    const backupDir = path.join(dataDir, 'connect-backups', 'claude-code', applied.backupId!);
    for (const name of readdirSync(backupDir)) expect(findSentinel(readFileSync(path.join(backupDir, name)))).toBeNull();

    // The file now points at Airlock: nothing is left to import, and importing again is refused.
    const after = (await service.list()).tools.find((tool) => tool.id === 'claude-code')!;
    expect(after).toMatchObject({ connected: true, importCandidate: null });
    await expect(service.apply('claude-code', { importKey: true })).rejects.toThrow(/no key to import/);
  });

  it('reuses a profile that already holds the same gateway and key', async () => {
    await store.update((config) => addProfile(config, { id: 'mine', name: 'Mine', baseUrl: 'https://gw.example.com/v1' }));
    await secrets.set(gatewayKeyAccount('mine'), SENTINEL_KEY);
    writeHome('.claude/settings.json', CLAUDE_SETTINGS);
    const applied = await service.apply('claude-code', { importKey: true });
    expect(applied.importProfileId).toBe('mine');
    expect(store.snapshot().profiles.map((profile) => profile.id)).toEqual(['mine']);
  });

  it('writes through a config file that is a symlink (a dotfiles repository), and undo restores it there', async () => {
    const original = '{\n  "model": "opus"\n}\n';
    const target = path.join(root, 'dotfiles', 'claude-settings.json');
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, original);
    const link = path.join(homeDir, '.claude', 'settings.json');
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(target, link);

    await service.apply('claude-code');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toContain(PROXY_URL);

    await service.undo('claude-code');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe(original);
  });

  it('reports a file that does not parse as a problem and refuses to write it', async () => {
    const file = writeHome('.config/opencode/opencode.json', '{ "provider": ');
    const listed = (await service.list()).tools.find((tool) => tool.id === 'opencode')!;
    expect(listed).toMatchObject({ detected: true, connected: false });
    expect(listed.problem).toMatch(/opencode.json is not valid JSON/);
    await expect(service.apply('opencode')).rejects.toThrow(/fix or move the file/);
    expect(readFileSync(file, 'utf8')).toBe('{ "provider": ');
    expect(store.snapshot().clientTokens).toEqual([]);
  });

  // The parsers' own words were a character offset and a code name (`CloseBraceExpected at character 25`), or a
  // TOML message's first line alone (`Error parsing TOML (2, 19):`). Never the offending line: it may hold a key.
  it.each([
    [
      'claude-code',
      '.claude/settings.json',
      '{ "env": {\n  "A": "sk-secret-in-line"\n',
      /settings\.json is not valid JSON \(close brace expected at line 3, column 1\)/,
    ],
    [
      'codex',
      '.codex/config.toml',
      'model = "m"\n[model_providers.x\napi_key = "sk-secret-in-line"\n',
      /config\.toml is not valid TOML \(at line 3, column 1\)/,
    ],
  ])("names where %s's file stops parsing, in words, without quoting it", async (tool, file, text, said) => {
    writeHome(file, text);
    const listed = (await service.list()).tools.find((candidate) => candidate.id === tool)!;
    expect(listed.problem).toMatch(said);
    expect(listed.problem).not.toContain('sk-secret-in-line');
  });

  it('lists the other tools when a config path is a folder, and refuses that one with its path', async () => {
    const folder = path.join(homeDir, '.claude', 'settings.json');
    mkdirSync(folder, { recursive: true });
    writeHome('.aider.conf.yml', '# mine\n');

    const { tools } = await service.list();
    expect(tools.find((tool) => tool.id === 'aider')).toMatchObject({ detected: true, problem: null });
    const claude = tools.find((tool) => tool.id === 'claude-code')!;
    expect(claude).toMatchObject({ detected: true, connected: false });
    expect(claude.problem).toContain(folder);
    expect(claude.problem).toMatch(/is a folder/);
    const refusal = await service.apply('claude-code').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ConnectError);
    expect((refusal as ConnectError).code).toBe('conflict');
    expect(store.snapshot().clientTokens).toEqual([]);
  });

  it('undo puts back the exact bytes and the file mode: a byte order mark, CRLF, no last line end, 0644', async () => {
    const original = '\uFEFF{\r\n  // mine\r\n  "model": "opus",\r\n}';
    const file = writeHome('.claude/settings.json', original);
    chmodSync(file, 0o644);
    await service.apply('claude-code');
    // The written file holds the client token: only its owner may read it.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await service.undo('claude-code');
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(statSync(file).mode & 0o777).toBe(0o644);
  });

  it('refuses a file that is not UTF-8 rather than writing it back garbled', async () => {
    const file = path.join(homeDir, '.aider.conf.yml');
    const latin1 = Buffer.from('# caf\xe9 settings\ndark-mode: true\n', 'latin1');
    writeFileSync(file, latin1);
    const listed = (await service.list()).tools.find((tool) => tool.id === 'aider')!;
    expect(listed.problem).toMatch(/is not UTF-8 text/);
    await expect(service.apply('aider')).rejects.toThrow(/is not UTF-8 text/);
    expect(readFileSync(file).equals(latin1)).toBe(true);
  });
});
