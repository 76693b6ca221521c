import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { connectHarness, type ConnectHarness } from './connectHarness.ts';

/** The user's own gateway key, in the tool's config before Connect replaced it: the backup keeps it. */
const CLAUDE_SETTINGS = `{\n  "model": "gw-model",\n  "env": {\n    "ANTHROPIC_BASE_URL": "https://gw.example.com",\n    "ANTHROPIC_AUTH_TOKEN": "${SENTINEL_KEY}"\n  }\n}\n`;

let harness: ConnectHarness;
beforeEach(() => {
  harness = connectHarness();
});
afterEach(() => harness.close());

describe("Connect backups, which hold the user's original secrets", () => {
  it('are 0600 files in 0700 folders under the data directory', async () => {
    harness.writeHome('.claude/settings.json', CLAUDE_SETTINGS);
    const { backupId } = await harness.service.apply('claude-code');
    const folders = [
      path.join(harness.dataDir, 'connect-backups'),
      path.join(harness.dataDir, 'connect-backups', 'claude-code'),
      path.join(harness.dataDir, 'connect-backups', 'claude-code', backupId!),
    ];
    for (const folder of folders) expect(statSync(folder).mode & 0o777).toBe(0o700);
    const names = readdirSync(folders[2]!);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(statSync(path.join(folders[2]!, name)).mode & 0o777).toBe(0o600);
  });

  it('makes an existing backups folder private again (copied in, made by hand, a loose umask)', async () => {
    const folder = path.join(harness.dataDir, 'connect-backups', 'claude-code');
    mkdirSync(folder, { recursive: true, mode: 0o755 });
    chmodSync(path.dirname(folder), 0o755);
    chmodSync(folder, 0o755);
    harness.writeHome('.claude/settings.json', CLAUDE_SETTINGS);
    await harness.service.apply('claude-code');
    expect(statSync(path.dirname(folder)).mode & 0o777).toBe(0o700);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
  });

  it('a config that does not parse is reported without the line that holds its key', async () => {
    // The YAML parser's message quotes the offending line, here the one with the key.
    harness.writeHome('.aider.conf.yml', `openai-api-base: https://gw.example.com/v1\nopenai-api-key: ${SENTINEL_KEY}: x\n`);
    const listed = (await harness.service.list()).tools.find((tool) => tool.id === 'aider')!;
    expect(listed.problem).toMatch(/\.aider\.conf\.yml is not valid YAML .*line 2, column \d+/);
    expect(findSentinel(JSON.stringify(listed))).toBeNull();
    const refusal = await harness.service.apply('aider').then(
      () => null,
      (error: Error) => error,
    );
    expect(refusal?.message).toMatch(/is not valid YAML/);
    expect(findSentinel(refusal!.message)).toBeNull();
  });
});

describe('forgetting backups', () => {
  it("deletes every backup of a tool, and with them the user's old key, leaving the tool connected", async () => {
    const file = harness.writeHome('.claude/settings.json', CLAUDE_SETTINGS);
    await harness.service.apply('claude-code', { model: 'gpt-5' });
    await harness.service.apply('claude-code', { model: 'gpt-5-mini' });
    const written = readFileSync(file, 'utf8');
    expect(findSentinel(filesUnder(harness.dataDir).join('\n'))).not.toBeNull();

    expect(await harness.service.forgetBackups('claude-code')).toEqual({ tool: 'claude-code', removedBackups: 1 });
    expect(findSentinel(filesUnder(harness.dataDir).join('\n'))).toBeNull();
    expect(readFileSync(file, 'utf8')).toBe(written);
    const listed = (await harness.service.list()).tools.find((tool) => tool.id === 'claude-code')!;
    expect(listed).toMatchObject({ connected: true, backups: [] });
    await expect(harness.service.undo('claude-code')).rejects.toThrow(/nothing to undo/);
    expect(await harness.service.forgetBackups('claude-code')).toEqual({ tool: 'claude-code', removedBackups: 0 });
  });
});

/** The text of every file under a folder. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'latin1'));
}

describe('undo after an import', () => {
  it('puts back a placeholder that is not offered as a key to import again', async () => {
    harness.writeHome('.claude/settings.json', CLAUDE_SETTINGS);
    await harness.service.apply('claude-code', { importKey: true });
    await harness.service.undo('claude-code');

    const listed = (await harness.service.list()).tools.find((tool) => tool.id === 'claude-code')!;
    expect(listed.importCandidate).toBeNull();
    await expect(harness.service.apply('claude-code', { importKey: true })).rejects.toThrow(/no key to import/);
    expect(harness.store.snapshot().profiles.map((profile) => profile.id)).toEqual(['gw-example-com']);
  });
});

describe('previews of a file that holds a secret under a name that does not say so', () => {
  it('mask it by its shape, as the logs do', async () => {
    // LiteLLM's Claude Code page (docs.litellm.ai/docs/proxy/client_setup/claude_code) has a virtual
    // key sent as `x-litellm-api-key: Bearer <key>`, a header set here with ANTHROPIC_CUSTOM_HEADERS.
    harness.writeHome(
      '.claude/settings.json',
      `{\n  "model": "gw-model",\n  "env": {\n    "ANTHROPIC_CUSTOM_HEADERS": "x-litellm-api-key: Bearer ${SENTINEL_KEY}",\n    "ANTHROPIC_BASE_URL": "https://gw.example.com"\n  }\n}\n`,
    );
    const plan = await harness.service.plan('claude-code');
    expect(plan.changes[0]!.diff).toContain('ANTHROPIC_CUSTOM_HEADERS');
    expect(findSentinel(JSON.stringify(plan))).toBeNull();
  });
});
