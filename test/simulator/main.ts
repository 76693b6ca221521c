/**
 * Runs the gateway simulator on its own, for `npm run demo` and the benchmark:
 *   node test/simulator/main.ts [--port N] [--key K] [--no-record] [--chunk-interval-ms N]
 */
import { parseArgs } from 'node:util';
import { startGatewaySimulator } from './server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    key: { type: 'string', multiple: true },
    'no-record': { type: 'boolean', default: false },
    'chunk-interval-ms': { type: 'string', default: '0' },
  },
});

const simulator = await startGatewaySimulator({
  port: Number(values.port),
  ...(values.key === undefined ? {} : { validKeys: values.key }),
  recordBodies: !values['no-record'],
  streamChunkIntervalMs: Number(values['chunk-interval-ms']),
});
console.log(`simulator listening on ${simulator.baseUrl}`);

async function shutdown(): Promise<void> {
  await simulator.close();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown());
process.once('SIGTERM', () => void shutdown());
