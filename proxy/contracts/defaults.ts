/** Client configs hold this port, so it never changes silently (a taken port is an error). */
export const DEFAULT_PORT = 8642;
export const DEFAULT_HOST = '127.0.0.1';
/** Reserved prefix for the window's UI and control API on the proxy's own port (defined by the contract). */
export { CONTROL_PREFIX } from './controlApi.ts';
/**
 * What the forwarding loop parses itself (aliases, usage injection, budgets, translation): JSON.parse
 * costs about 1 ns a byte of text and up to 0.4 us a key or value (a new key or string in one big
 * object, the worst shape), so such a body holds the loop a few milliseconds at most. Larger or more
 * intricate bodies are only scanned as they arrive, and translated on a thread of their own.
 */
export const PARSE_ON_LOOP_MAX_BYTES = 512 * 1024;
export const PARSE_ON_LOOP_MAX_STRUCTURAL_MARKS = 4096;
/**
 * Deeper nesting is refused before parsing: JSON.stringify and other recursive walks overflow the
 * stack a few thousand levels down, Python gateways stop near 1000 (the default recursion limit),
 * and real requests (JSON Schemas in tools) nest a few dozen levels at most.
 */
export const MAX_JSON_NESTING_DEPTH = 1000;
/** Each captured body (request, response) kept for the log is capped here. */
export const CAPTURE_LIMIT_BYTES = 1024 * 1024;
