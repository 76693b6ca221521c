/** Client configs hold this port, so it never changes silently (a taken port is an error). */
export const DEFAULT_PORT = 8642;
export const DEFAULT_HOST = '127.0.0.1';
/** Reserved prefix for the window's UI and control API on the proxy's own port (defined by the contract). */
export { CONTROL_PREFIX } from '../contracts/api.ts';
/** JSON bodies up to this size are parsed (aliases, usage injection, budgets); larger ones are only scanned. */
export const PARSE_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
/** Each captured body (request, response) kept for the log is capped here. */
export const CAPTURE_LIMIT_BYTES = 1024 * 1024;
