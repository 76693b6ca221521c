export { startGatewaySimulator, DEFAULT_STREAM_CHUNK_COUNT } from './server.ts';
export { DEFAULT_MODEL_IDS } from './models.ts';
export { maskAuthorization, maskSecret } from './auth.ts';
export type { Fault, GatewaySimulator, ReceivedRequest, ScriptedToolCall, SimulatorOptions } from './types.ts';
