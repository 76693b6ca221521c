/**
 * A measurement, not a test: the window's main-thread time over a fixed run of stream frames, with
 * a running request selected (DESIGN.md, "A stream's frame renders what it changed"). The window
 * built into `uiDir` is served by the proxy, a simulator streams one reply in STREAM_PIECES pieces
 * PIECE_INTERVAL_MS apart (a painted frame each), and CDP's Performance.getMetrics is read between
 * two pieces shown, so the request's start and end are outside the figure.
 *
 *   node test/e2e/measure/streamFrameCpu.ts <uiDir> <bodyBytes> <open body: 0|1> <select: 0|1> [trace]
 *
 * `trace` also prints the main thread's trace events by total time (what is not script).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type CDPSession } from 'playwright-core';
import { startControlHarness } from '../../support/controlHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { createClientToken } from '../support/windowSession.ts';

const STREAM_PIECES = 150;
const PIECE_INTERVAL_MS = 40;
const FIRST_MEASURED_PIECE = 40;
const LAST_MEASURED_PIECE = 140;
/** Rows in the list besides the running one, more than it shows. */
const FINISHED_ROWS = 60;
const MODEL = 'gpt-4o-mini';

const [uiDir, bodyBytesArg, openBodyArg, selectArg, traceArg] = process.argv.slice(2);
if (uiDir === undefined) throw new Error('Usage: streamFrameCpu.ts <uiDir> <bodyBytes> <open body: 0|1> <select: 0|1> [trace]');
const bodyBytes = Number(bodyBytesArg);
const select = selectArg !== '0';
const openBody = select && openBodyArg === '1';

/** An agent's chat body: a long history of turns, at most `bytes` long. */
function agentBody(bytes: number): string {
  const messages: { role: string; content: string }[] = [];
  const bodyOf = () => JSON.stringify({ model: MODEL, stream: true, messages });
  for (let turn = 0; ; turn += 1) {
    messages.push({ role: turn % 2 === 0 ? 'user' : 'assistant', content: `turn ${turn}: ${'read the file and edit it. '.repeat(20)}` });
    if (bodyOf().length > bytes) break;
  }
  messages.pop();
  return bodyOf();
}

/** The main thread's complete trace events, total milliseconds by name (nested ones overlap). */
async function traceTotals(cdp: CDPSession, stop: () => Promise<void>): Promise<[string, number][]> {
  const complete = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (event) => resolve(event.stream as string)));
  await stop();
  await cdp.send('Tracing.end');
  const handle = await complete;
  let text = '';
  for (;;) {
    const chunk = await cdp.send('IO.read', { handle });
    text += chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString() : chunk.data;
    if (chunk.eof) break;
  }
  type TraceEvent = { name: string; ph: string; dur?: number; tid: number; args?: { name?: string } };
  const events = (JSON.parse(text) as { traceEvents: TraceEvent[] }).traceEvents;
  const mainTid = events.find((event) => event.ph === 'M' && event.name === 'thread_name' && event.args?.name === 'CrRendererMain')?.tid;
  const totals = new Map<string, number>();
  for (const event of events)
    if (event.ph === 'X' && event.dur !== undefined && event.tid === mainTid)
      totals.set(event.name, (totals.get(event.name) ?? 0) + event.dur / 1_000);
  return [...totals].sort((left, right) => right[1] - left[1]).slice(0, 12);
}

const harness = await startControlHarness({
  uiDir,
  simulator: { streamChunkCount: STREAM_PIECES, streamChunkIntervalMs: PIECE_INTERVAL_MS },
});
const userDataDir = mkdtempSync(path.join(tmpdir(), 'airlock-measure-'));
try {
  for (const [route, body] of [
    ['/profiles', { id: 'main', name: 'Main', baseUrl: harness.simulator.baseUrl }],
    ['/profiles/main/key', { key: SENTINEL_KEY }],
  ] as const)
    await harness.json(route, { method: route.endsWith('key') ? 'PUT' : 'POST', body: JSON.stringify(body) });
  await harness.json('/profiles/main/activate', { method: 'POST' });
  const token = await createClientToken(harness, 'claude-code');
  const send = (body: string) =>
    fetch(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
  for (let index = 0; index < FINISHED_ROWS; index += 1)
    await (await send(JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `hi ${index}` }] }))).text();

  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(harness.control.createLoginUrl());
  await page.getByText(`${FINISHED_ROWS} requests`).waitFor();

  harness.simulator.script({ kind: 'reply', content: Array.from({ length: STREAM_PIECES }, (_, index) => `w${index} `).join('') });
  const answer = send(agentBody(bodyBytes));
  await page.getByText(`${FINISHED_ROWS + 1} requests`).waitFor();
  if (select) {
    await page.locator('[role="option"]').first().click();
    await page.getByText('Request (in flight)').waitFor();
  }
  if (openBody) {
    await page.locator('summary', { hasText: 'Request body' }).click();
    await page.getByRole('button', { name: 'Raw' }).waitFor();
  }
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => {
    const { metrics: list } = await cdp.send('Performance.getMetrics');
    return new Map(list.map((metric) => [metric.name, metric.value]));
  };
  const pieceShown = (piece: number) =>
    page.waitForFunction((text) => document.querySelector('[role="option"] .preview')?.textContent?.includes(text) ?? false, `w${piece} `, {
      polling: 'raf',
    });
  await pieceShown(FIRST_MEASURED_PIECE);
  if (traceArg === 'trace') await cdp.send('Tracing.start', { categories: 'devtools.timeline', transferMode: 'ReturnAsStream' });
  const before = await metrics();
  let after = before;
  const stop = async () => {
    await pieceShown(LAST_MEASURED_PIECE);
    after = await metrics();
  };
  let totals: [string, number][] = [];
  if (traceArg === 'trace') totals = await traceTotals(cdp, stop);
  else await stop();
  const ms = (name: string) => Math.round(((after.get(name) ?? 0) - (before.get(name) ?? 0)) * 1_000);
  console.log(
    JSON.stringify({
      uiDir,
      bodyBytes,
      select,
      openBody,
      frames: LAST_MEASURED_PIECE - FIRST_MEASURED_PIECE,
      taskMs: ms('TaskDuration'),
      scriptMs: ms('ScriptDuration'),
      layoutMs: ms('LayoutDuration'),
      styleMs: ms('RecalcStyleDuration'),
      ...(totals.length > 0 ? { traceMs: Object.fromEntries(totals.map(([name, total]) => [name, Math.round(total)])) } : {}),
    }),
  );
  await (await answer).text();
  await context.close();
} finally {
  await harness.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
