import { createInterface } from 'node:readline';

/**
 * A stdio MCP server with one tool, `forecast`, for Codex to launch (codexConfig's mcpServers): the
 * least of the protocol Codex needs (initialize, tools/list, tools/call as newline-delimited JSON-RPC,
 * https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#stdio). Its answer names
 * the city asked for next to a marker only this server writes, so a test sees the call went through.
 */

export const MCP_STAND_IN_SERVER = 'weather';
export const MCP_STAND_IN_TOOL = 'forecast';
export const MCP_STAND_IN_MARKER = 'airlock-mcp-forecast';

interface JsonRpcRequest {
  id?: number | string;
  method: string;
  params?: { protocolVersion?: string; arguments?: { city?: string } };
}

function answer(request: JsonRpcRequest): Record<string, unknown> {
  if (request.method === 'initialize') {
    const serverInfo = { name: MCP_STAND_IN_SERVER, version: '1.0.0' };
    return { result: { protocolVersion: request.params?.protocolVersion, capabilities: { tools: {} }, serverInfo } };
  }
  if (request.method === 'tools/list') {
    const inputSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    return { result: { tools: [{ name: MCP_STAND_IN_TOOL, description: 'Weather forecast for a city', inputSchema }] } };
  }
  if (request.method === 'tools/call') {
    const text = `${MCP_STAND_IN_MARKER}: sunny in ${request.params?.arguments?.city ?? 'nowhere'}`;
    return { result: { content: [{ type: 'text', text }] } };
  }
  return { error: { code: -32601, message: `no method ${request.method}` } };
}

function main(): void {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const request = JSON.parse(line) as JsonRpcRequest;
    // Notifications (no id) want no answer.
    if (request.id === undefined) return;
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, ...answer(request) })}\n`);
  });
}

if (import.meta.main) main();
