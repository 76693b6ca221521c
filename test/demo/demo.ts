/**
 * `npm run demo`: Airlock in front of the gateway simulator, with a demo key held in memory (your
 * real keychain and profiles are not touched), a sample request through it, and the window's link.
 * Stop it with Ctrl+C.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { generateToken, tokenRecord } from '../../proxy/http/clientTokens.ts';
import { openConfigStore } from '../../proxy/app/profiles/configStore.ts';
import { addClientToken, addProfile } from '../../proxy/app/profiles/configMutations.ts';
import { startAirlock } from '../../proxy/app/startAirlock.ts';
import { gatewayKeyAccount } from '../../proxy/contracts/secretStore.ts';
import { startGatewaySimulator } from '../simulator/index.ts';
import { memorySecretStore } from '../support/memorySecretStore.ts';

const DEMO_PORT = Number(process.env.AIRLOCK_DEMO_PORT ?? 8643);
const DEMO_KEY = 'sk-demo-0000000000000000000000000000demo';

const simulator = await startGatewaySimulator({ validKeys: [DEMO_KEY], streamChunkCount: 12, streamChunkIntervalMs: 80 });
const dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-demo-'));
const clientToken = generateToken();
const setup = openConfigStore(dataDir);
await setup.update((config) =>
  addProfile(
    config,
    {
      id: 'demo',
      name: 'Demo gateway (simulator)',
      baseUrl: simulator.baseUrl,
      prices: [{ model: 'gpt-4o-mini', inputPer1M: 1.5, outputPer1M: 6 }],
    },
    { activate: true },
  ),
);
await setup.update((config) => addClientToken(config, tokenRecord('demo-client', clientToken, null, Date.now())));
setup.close();

const airlock = await startAirlock({
  dataDir,
  port: DEMO_PORT,
  env: {},
  secrets: memorySecretStore({ [gatewayKeyAccount('demo')]: DEMO_KEY }),
}).catch((error: unknown) => {
  console.error(`airlock demo: ${error instanceof Error ? error.message : String(error)} (set AIRLOCK_DEMO_PORT to use another port)`);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
});

const url = airlock.proxy.url;
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: clientToken, maxRetries: 0 });
const stream = await client.chat.completions.create({
  model: 'gpt-4o-mini',
  stream: true,
  messages: [{ role: 'user', content: 'Hello from the Airlock demo' }],
});
process.stdout.write('Sample streamed answer through Airlock: ');
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? '');
process.stdout.write('\n\n');

console.log(`Airlock demo is serving on ${url} (upstream: the gateway simulator, a demo key in memory).`);
console.log(`  Open the window:  ${airlock.control.createLoginUrl()}`);
console.log(`  Client token:     ${clientToken}`);
console.log(`  Try it:           curl -N ${url}/v1/chat/completions -H "Authorization: Bearer ${clientToken}" \\`);
console.log(
  `                      -H 'content-type: application/json' -d '{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi"}]}'`,
);
console.log('Press Ctrl+C to stop.');

const stop = (): void => {
  void airlock
    .stop({ drainMs: 2_000 })
    .then(() => simulator.close())
    .finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
