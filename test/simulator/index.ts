/**
 * The gateway simulator: a real HTTP server on 127.0.0.1 speaking the gateway contract
 * (docs/gateway-spec.md), the upstream for tests, the benchmark and `npm run demo`.
 *
 *   const gateway = await startGatewaySimulator();
 *   gateway.script({ kind: 'status', status: 429, retryAfterS: 1 }, { kind: 'cutAfter', chunks: 2 });
 *   // point the proxy at gateway.baseUrl with SENTINEL_KEY; assert on gateway.received
 *   gateway.useDialect('new-api'); // or startGatewaySimulator({ dialect: 'litellm' }): see dialects.ts
 *   await gateway.close();
 */
export { startGatewaySimulator, DEFAULT_STREAM_CHUNK_COUNT } from './server.ts';
export { DIALECTS, type DialectName } from './dialects.ts';
export { SEED_DIALECT } from './dialect.ts';
export { DEFAULT_MODEL_IDS } from './models.ts';
export { maskAuthorization } from './auth.ts';
export type { GatewaySimulator, SimulatorOptions } from './types.ts';
