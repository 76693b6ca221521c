import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectError } from '../../../../proxy/app/connect/toolAdapter.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { connectHarness, PROXY_URL, type ConnectHarness } from './connectHarness.ts';

/** The user's own gateway key, in settings.json before Connect replaced it with a client token. */
const USER_KEY = 'sk-user-original-key-4c1d9e7a2b';
const ORIGINAL = `{
  "model": "opus",
  "env": {
    "ANTHROPIC_BASE_URL": "https://gw.example.com",
    "ANTHROPIC_AUTH_TOKEN": "${USER_KEY}",
    "DISABLE_TELEMETRY": "1"
  },
  "statusLine": { "type": "command", "command": "~/bin/status" }
}
`;

let harness: ConnectHarness;
beforeEach(() => {
  harness = connectHarness();
});
afterEach(() => harness.close());

/**
 * What Claude Code does to ~/.claude/settings.json while it runs: it reads the file, changes a
 * setting and writes the whole object back as JSON (2-space indent), e.g. a permission rule the user
 * approved with "don't ask again" goes to permissions.allow (anthropics/claude-code#9875, #7300),
 * and /model writes the top-level "model".
 */
interface Settings {
  env: Record<string, string>;
  [name: string]: unknown;
}

function claudeCodeSaves(file: string, change: (settings: Settings) => void): void {
  const settings = JSON.parse(readFileSync(file, 'utf8')) as Settings;
  change(settings);
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
}

describe('undo after Claude Code changed its settings.json', () => {
  it("puts back the user's values for the keys Airlock changed and keeps what the tool added since", async () => {
    const file = harness.writeHome('.claude/settings.json', ORIGINAL);
    await harness.service.apply('claude-code', { model: 'gpt-5' });
    claudeCodeSaves(file, (settings) => {
      settings.permissions = { allow: ['Bash(npm test:*)'] };
      settings.model = 'sonnet';
      settings.env.DISABLE_TELEMETRY = '0';
    });

    const undone = await harness.service.undo('claude-code');
    expect(undone.restoredFiles).toEqual([file]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      model: 'sonnet',
      env: { ANTHROPIC_BASE_URL: 'https://gw.example.com', ANTHROPIC_AUTH_TOKEN: USER_KEY, DISABLE_TELEMETRY: '0' },
      statusLine: { type: 'command', command: '~/bin/status' },
      permissions: { allow: ['Bash(npm test:*)'] },
    });
  });

  it('takes out an env block Airlock created, and only that, from a file the tool rewrote', async () => {
    const file = harness.writeHome('.claude/settings.json', '{\n    "model": "opus"\n}\n');
    await harness.service.apply('claude-code');
    claudeCodeSaves(file, (settings) => {
      settings.permissions = { allow: ['WebFetch(domain:example.com)'] };
    });

    await harness.service.undo('claude-code');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ model: 'opus', permissions: { allow: ['WebFetch(domain:example.com)'] } });
  });

  it('refuses when a key Airlock wrote was changed since, naming it and the fix, and changes nothing', async () => {
    const file = harness.writeHome('.claude/settings.json', ORIGINAL);
    await harness.service.apply('claude-code');
    claudeCodeSaves(file, (settings) => {
      settings.permissions = { allow: ['Bash(ls:*)'] };
      settings.env.ANTHROPIC_BASE_URL = 'https://other.example.com';
    });
    const edited = readFileSync(file, 'utf8');

    const refusal = await harness.service.undo('claude-code').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ConnectError);
    const message = (refusal as ConnectError).message;
    expect(message).toContain('env.ANTHROPIC_BASE_URL');
    expect(message).not.toContain('env.ANTHROPIC_AUTH_TOKEN');
    expect(message).toContain(PROXY_URL);
    expect(message).not.toContain(USER_KEY);
    expect(readFileSync(file, 'utf8')).toBe(edited);
  });

  it('names a token changed since by its last four characters only', async () => {
    const file = harness.writeHome('.claude/settings.json', ORIGINAL);
    await harness.service.apply('claude-code');
    const otherKey = 'sk-someone-else-key-9f8e7d6c5b';
    claudeCodeSaves(file, (settings) => {
      settings.env.ANTHROPIC_AUTH_TOKEN = otherKey;
    });

    const message = await harness.service.undo('claude-code').then(
      () => '',
      (error: Error) => error.message,
    );
    expect(message).toContain('env.ANTHROPIC_AUTH_TOKEN was changed after Airlock set it to a secret ending in');
    expect(message).toContain(`it is now a secret ending in ${otherKey.slice(-4)}`);
    expect(message).not.toContain(otherKey);
    expect(message).not.toMatch(/alk_[A-Za-z0-9_-]{20}/);
  });

  it('masks a key in a changed value whose name does not say it holds one', async () => {
    const file = harness.writeHome('.claude/settings.json', ORIGINAL);
    await harness.service.apply('claude-code');
    // A key put in the URL's query, as Google's Gemini API takes it (?key=).
    claudeCodeSaves(file, (settings) => {
      settings.env.ANTHROPIC_BASE_URL = `https://gw.example.com/?key=${SENTINEL_KEY}`;
    });
    const message = await harness.service.undo('claude-code').then(
      () => '',
      (error: Error) => error.message,
    );
    expect(message).toContain('env.ANTHROPIC_BASE_URL was changed');
    expect(findSentinel(message)).toBeNull();
  });

  it('undoes once the user set the changed setting back to their own value', async () => {
    const file = harness.writeHome('.claude/settings.json', ORIGINAL);
    await harness.service.apply('claude-code');
    claudeCodeSaves(file, (settings) => {
      settings.env.ANTHROPIC_BASE_URL = 'https://other.example.com';
    });
    await expect(harness.service.undo('claude-code')).rejects.toThrow(/env.ANTHROPIC_BASE_URL/);
    claudeCodeSaves(file, (settings) => {
      settings.env.ANTHROPIC_BASE_URL = 'https://gw.example.com';
    });

    await harness.service.undo('claude-code');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(ORIGINAL));
  });
});

describe('undo after Codex changed its config.toml', () => {
  it('keeps the model and reasoning effort Codex saved after the line Airlock wrote', async () => {
    const original = '# mine\nmodel = "o3"\napproval_policy = "on-request"\n\n[mcp_servers.docs]\ncommand = "npx"\n';
    const file = harness.writeHome('.codex/config.toml', original);
    await harness.service.apply('codex');
    // Codex's /model saves the model and its reasoning effort with toml_edit (codex-rs core/src/config/edit.rs,
    // ConfigEdit::SetModel), which appends a new top-level key after the last one: Airlock's model_provider.
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace('model = "o3"', 'model = "gpt-5-codex"')
        .replace('model_provider = "airlock"\n', 'model_provider = "airlock"\nmodel_reasoning_effort = "high"\n'),
    );

    await harness.service.undo('codex');
    expect(readFileSync(file, 'utf8')).toBe(
      '# mine\nmodel = "gpt-5-codex"\napproval_policy = "on-request"\nmodel_reasoning_effort = "high"\n\n[mcp_servers.docs]\ncommand = "npx"\n',
    );
  });
});

describe('undo after setting a tool up more than once', () => {
  it("puts back the user's own file in one step when nothing changed between the setups", async () => {
    const file = harness.writeHome('.claude/settings.json', ORIGINAL);
    const first = await harness.service.apply('claude-code', { model: 'gpt-5' });
    const second = await harness.service.apply('claude-code', { model: 'gpt-5-mini' });
    expect(second.backupId).toBe(first.backupId);
    expect((await harness.service.list()).tools.find((tool) => tool.id === 'claude-code')!.backups).toHaveLength(1);

    await harness.service.undo('claude-code');
    expect(readFileSync(file, 'utf8')).toBe(ORIGINAL);
    await expect(harness.service.undo('claude-code')).rejects.toThrow(/nothing to undo/);
  });

  it('keeps a setup of its own when the file changed between the setups, so undo keeps that change', async () => {
    const file = harness.writeHome('.claude/settings.json', ORIGINAL);
    await harness.service.apply('claude-code', { model: 'gpt-5' });
    claudeCodeSaves(file, (settings) => {
      settings.permissions = { allow: ['Bash(ls:*)'] };
    });
    await harness.service.apply('claude-code', { model: 'gpt-5-mini' });
    expect((await harness.service.list()).tools.find((tool) => tool.id === 'claude-code')!.backups).toHaveLength(2);

    await harness.service.undo('claude-code');
    await harness.service.undo('claude-code');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ ...JSON.parse(ORIGINAL), permissions: { allow: ['Bash(ls:*)'] } });
  });
});
