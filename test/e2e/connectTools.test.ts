import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectListResponse } from '../../proxy/contracts/connect.ts';
import { gatewayKeyAccount } from '../../proxy/contracts/secretStore.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../support/http.ts';
import { findSentinel, SENTINEL_KEY } from '../support/sentinel.ts';
import { openWindowSession, type WindowSession } from './support/windowSession.ts';

let session: WindowSession;
let page: Page;
let settingsPath: string;
let gatewayRoot: string;
const LAST_FOUR = SENTINEL_KEY.slice(-4);

beforeAll(async () => {
  session = await openWindowSession();
  page = session.page;
  gatewayRoot = session.harness.simulator.baseUrl.replace(/\/v1$/, '');
  settingsPath = path.join(session.harness.homeDir, '.claude', 'settings.json');
  mkdirSync(path.dirname(settingsPath), { recursive: true });
  // A cc-switch style setup: the gateway's key in the plain file, next to settings of the user's own.
  writeFileSync(
    settingsPath,
    `{\n  // my settings\n  "model": "opus",\n  "env": {\n    "ANTHROPIC_BASE_URL": "${gatewayRoot}",\n    "ANTHROPIC_AUTH_TOKEN": "${SENTINEL_KEY}"\n  }\n}\n`,
  );
});

afterAll(async () => {
  await session?.close();
});

async function expectNoKeyOnPage(): Promise<void> {
  expect(findSentinel(await page.content())).toBeNull();
}

describe('Connect: one-click setup of a tool', () => {
  it('previews, applies with an import, lets the tool through with the token written, and undoes', async () => {
    await page.goto(session.screenUrl('connect'));
    const card = page.getByTestId('connect-claude-code');
    await card.getByText('found, not connected').waitFor();
    await expect.poll(() => page.getByTestId('connect-codex').getByText('not found (applying creates its config)').count()).toBe(1);

    await card.getByLabel(`Move the key ending in ${LAST_FOUR} for ${gatewayRoot} into the keychain as a profile`).check();
    // From the keyboard: the button works while focused, and keeps focus through its request.
    const previewButton = card.getByRole('button', { name: 'Preview changes for Claude Code' });
    await previewButton.focus();
    await page.keyboard.press('Enter');
    const diff = card.locator('pre');
    await diff.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Preview changes for Claude Code');
    const diffText = (await diff.textContent()) ?? '';
    expect(diffText).toContain(`-    "ANTHROPIC_AUTH_TOKEN": "<gateway key …${LAST_FOUR}>"`);
    expect(diffText).toContain('+    "ANTHROPIC_AUTH_TOKEN": "<new client token "claude-code">"');
    expect(diffText).toContain(`+    "ANTHROPIC_BASE_URL": "${session.harness.proxy.url}"`);
    await expect.poll(() => card.getByRole('status').textContent()).toContain('moves to the keychain as profile "main"');
    await expectNoKeyOnPage();
    await session.shot('60-connect-preview');

    await card.getByRole('button', { name: 'Apply to Claude Code' }).focus();
    await page.keyboard.press('Enter');
    await card.getByText('connected with client token "claude-code"').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Apply to Claude Code');
    expect(await card.getByRole('status').textContent()).toMatch(
      /Claude Code now uses Airlock with client token "claude-code"\. Backup \d{8}T\d+Z\./,
    );
    await expectNoKeyOnPage();
    await session.shot('61-connect-applied');

    const written = readFileSync(settingsPath, 'utf8');
    expect(findSentinel(written)).toBeNull();
    expect(written).toContain('// my settings');
    // The profile that already held this gateway and key is reused, not duplicated.
    expect(session.harness.store.snapshot().profiles.map((profile) => profile.id)).toEqual(['main']);
    expect(await session.harness.secrets.get(gatewayKeyAccount('main'))).toBe(SENTINEL_KEY);
    // The token in the file opens the proxy.
    const token = /"ANTHROPIC_AUTH_TOKEN": "(alk_[^"]+)"/.exec(written)![1]!;
    const answer = await rawRequest(`${session.harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
      body: chatBody({ model: 'gpt-4o-mini' }),
    });
    expect(answer.status).toBe(200);
    expect(session.harness.simulator.received.at(-1)?.authOk).toBe(true);

    await card.getByRole('button', { name: 'Undo for Claude Code' }).click();
    await card.getByText('found, not connected').waitFor();
    const restored = readFileSync(settingsPath, 'utf8');
    expect(restored).toContain(`"ANTHROPIC_BASE_URL": "${gatewayRoot}"`);
    // The key left the plain files for good: the restored file names where it went.
    expect(restored).toContain('"ANTHROPIC_AUTH_TOKEN": "moved-to-airlock-keychain-profile-main"');
    expect(findSentinel(restored)).toBeNull();
  });

  it('deletes the backups from the window, leaving the file as Airlock wrote it', async () => {
    const card = page.getByTestId('connect-claude-code');
    await card.getByRole('button', { name: 'Apply to Claude Code' }).focus();
    await page.keyboard.press('Enter');
    await card.getByText('connected with client token "claude-code"').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Apply to Claude Code');
    await card.getByText(/1 backup\(s\) in Airlock's data folder keep the values Airlock replaced/).waitFor();
    const written = readFileSync(settingsPath, 'utf8');

    // Deleting them ends undo for good: it asks first, and keeping them changes nothing.
    await card.getByRole('button', { name: 'Delete backups of Claude Code…' }).click();
    const confirmation = card.getByRole('alertdialog', { name: 'Delete the backups of Claude Code?' });
    await confirmation.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep them');
    await page.keyboard.press('Enter');
    await card.getByRole('button', { name: 'Delete backups of Claude Code…' }).waitFor();
    // Closed, it gives focus back to the button that opened it (WAI-ARIA APG alert dialog); Escape closes it too.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Delete backups of Claude Code…');
    await page.keyboard.press('Enter');
    await confirmation.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => confirmation.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Delete backups of Claude Code…');
    expect(
      ((await (await session.harness.api('/connect')).json()) as ConnectListResponse).tools.find((tool) => tool.id === 'claude-code')
        ?.backups,
    ).toHaveLength(1);
    await card.getByRole('button', { name: 'Delete backups of Claude Code…' }).click();
    await card.getByRole('button', { name: 'Delete 1 backup(s) of Claude Code' }).click();
    await card.getByText('Deleted 1 backup(s) of Claude Code. Its config file stays as it is; undo is no longer possible.').waitFor();
    // Its button went with the backups: focus is on the tool's title, not lost to the page.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Claude Code');
    await expect.poll(() => card.getByRole('button', { name: 'Undo for Claude Code' }).count()).toBe(0);
    expect(readFileSync(settingsPath, 'utf8')).toBe(written);
    const listed = (await (await session.harness.api('/connect')).json()) as ConnectListResponse;
    expect(listed.tools.find((tool) => tool.id === 'claude-code')?.backups).toEqual([]);
  });

  it("with the model left blank, keeps the model the tool has instead of writing the gateway's first", async () => {
    // The model decides what a tool's requests cost: a blank field must not pick one for every tool.
    const codexConfig = path.join(session.harness.homeDir, '.codex', 'config.toml');
    mkdirSync(path.dirname(codexConfig), { recursive: true });
    writeFileSync(codexConfig, 'model = "my-own-model"\n');
    await page.goto(session.screenUrl('connect'));
    const card = page.getByTestId('connect-codex');
    await card.getByRole('button', { name: 'Apply to Codex CLI' }).waitFor();
    // The gateway's models are loaded (they fill the field's suggestions) and the field is left blank.
    await expect.poll(() => page.locator('#connect-models option').count()).toBeGreaterThan(0);
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('');

    await card.getByRole('button', { name: 'Apply to Codex CLI' }).click();
    await card.getByText(/connected with client token/).waitFor();
    const written = readFileSync(codexConfig, 'utf8');
    expect(written).toContain('model_provider = "airlock"');
    expect(written).toMatch(/^model = "my-own-model"$/m);

    // A model typed is the one written.
    await page.getByLabel('Model', { exact: true }).fill('chosen-model');
    await card.getByRole('button', { name: 'Apply to Codex CLI' }).click();
    await expect.poll(() => readFileSync(codexConfig, 'utf8')).toMatch(/^model = "chosen-model"$/m);
  });
  it('with the model left blank, asks for one before applying to a tool that has no model of its own', async () => {
    // A fresh aider config names no model: aider would ask the gateway for its built-in default, which the
    // gateway may not serve (a 404 on the first request), so the window asks instead of applying blind.
    const aiderConfig = path.join(session.harness.homeDir, '.aider.conf.yml');
    await page.goto(session.screenUrl('connect'));
    const card = page.getByTestId('connect-aider');
    const apply = card.getByRole('button', { name: 'Apply to aider' });
    await apply.waitFor();
    // The field may still hold a model typed earlier on this screen.
    await page.getByLabel('Model', { exact: true }).fill('');
    await card.getByText('aider has no model of its own set').waitFor();
    // Applied anyway, it is refused with the fix, and nothing is written.
    await apply.click();
    await expect.poll(() => card.getByText(/choose the model aider should ask Airlock for/).count()).toBe(1);
    expect(existsSync(aiderConfig)).toBe(false);
    // A tool with a model of its own (Claude Code's settings name "opus") gets no such warning.
    const claudeCard = page.getByTestId('connect-claude-code');
    expect(await claudeCard.getByText(/has no model of its own/).count()).toBe(0);

    await page.getByLabel('Model', { exact: true }).fill('gw-model');
    await expect.poll(() => card.getByText(/Type the model aider should ask for/).count()).toBe(0);
    await apply.click();
    await card.getByText(/connected with client token/).waitFor();
    expect(readFileSync(aiderConfig, 'utf8')).toMatch(/^model: openai\/gw-model$/m);
  });
});
