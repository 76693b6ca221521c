import { NO_PROXY_VARIABLES, proxyShown, proxyVariableSet, variableSet as set, withScheme } from '../../forward/upstreamProxy.ts';

/**
 * Whether the tools started with this environment reach Airlock directly. Probed with the real tools
 * (2026-11-29: Claude Code 2.1, Codex 0.169, Continue's cn 1.5, curl 7.88, Python requests and httpx):
 * with a proxy variable set, each sends its requests for http://127.0.0.1:<port> to the proxy unless
 * NO_PROXY names 127.0.0.1 as written. `localhost` helps none of them (Continue rewrites localhost to
 * 127.0.0.1 before it compares), and an address range only some. Then a company proxy, which cannot
 * reach this computer's 127.0.0.1, fails the tool, and gets its Airlock client token and prompts in
 * clear text (a plain-http request through a proxy carries its headers to it).
 */
/**
 * Claude Code reads the lower-case one first on one path, curl only it: both must name Airlock, and
 * connect writes both where a tool reads either (Claude Code's settings env, aider's set-env).
 */
export const NO_PROXY_WRITTEN = ['NO_PROXY', 'no_proxy'] as const;
/** What every probed tool matches for a base URL of http://127.0.0.1:<port>. */
const BYPASS_ENTRY = /^(\*|127\.0\.0\.1(:\d+)?)$/;
/** The entry connect adds: the host of the base URL it writes. */
export const AIRLOCK_HOST = '127.0.0.1';

/** Whether a NO_PROXY value lets every probed tool reach Airlock directly. */
export function namesAirlock(noProxy: string): boolean {
  return noProxy.split(/[,\s]+/).some((entry) => BYPASS_ENTRY.test(entry));
}

/**
 * The value `airlock connect` writes for `name` in a tool's own environment settings so it reaches
 * Airlock directly when `env` (connect's own) sets a proxy; null when it writes none: no proxy, or
 * the tool's value names 127.0.0.1 already. The tool's value replaces the shell's for the tool and
 * the commands it runs, so the user's exceptions stay in it: the value the tool has (`current`),
 * else the environment's under that name, else under the other case, plus 127.0.0.1.
 */
export function noProxyForTool(name: (typeof NO_PROXY_VARIABLES)[number], current: unknown, env: NodeJS.ProcessEnv): string | null {
  if (proxyVariableSet(env) === null) return null;
  const own = typeof current === 'string' && current.trim() !== '' ? current : null;
  if (own !== null && namesAirlock(own)) return null;
  const otherCase = name === 'NO_PROXY' ? 'no_proxy' : 'NO_PROXY';
  const entries = (own ?? set(env, name) ?? set(env, otherCase) ?? '').split(/[,\s]+/).filter((entry) => entry !== '');
  // Comma-separated: every probed tool splits on commas, and a .env value without spaces needs no quotes.
  return [...entries, ...(namesAirlock(entries.join(',')) ? [] : [AIRLOCK_HOST])].join(',');
}

/** What connect says of the bypass it wrote into a tool's settings (`env.NO_PROXY=…`), and why. */
export function proxyBypassNote(toolTitle: string, written: readonly string[], env: NodeJS.ProcessEnv): string {
  const proxyVariable = proxyVariableSet(env);
  const why = proxyVariable
    ? `${proxyVariable} is set here, and without it ${toolTitle} sends its requests for Airlock, with the client token and your prompts, to that proxy, which cannot reach this computer`
    : `so that a proxy set where ${toolTitle} runs never gets its requests for Airlock`;
  return `Wrote ${written.join(' and ')} for ${toolTitle}: ${why}.`;
}

/** Why tools started with this environment would send Airlock's requests to a proxy: the proxy's variable and the exceptions lacking 127.0.0.1. */
interface ThroughProxy {
  proxyVariable: string;
  /** The exception variables, either case, that are unset or do not name 127.0.0.1. */
  lacking: string[];
}

function throughProxy(env: NodeJS.ProcessEnv): ThroughProxy | null {
  const proxyVariable = proxyVariableSet(env);
  if (proxyVariable === null) return null;
  const noProxies = NO_PROXY_VARIABLES.map((name) => ({ name, value: set(env, name) }));
  const given = noProxies.filter(({ value }) => value !== null);
  // A tool reads the one that is set; with both set, some read each.
  if (given.length > 0 && given.every(({ value }) => namesAirlock(value!))) return null;
  return { proxyVariable, lacking: noProxies.filter(({ value }) => value === null || !namesAirlock(value)).map(({ name }) => name) };
}

function lackingText(lacking: readonly string[]): string {
  return `${lacking.join(' and ')} ${lacking.length > 1 ? 'do' : 'does'} not name 127.0.0.1`;
}

/** The warning for an environment whose tools would send Airlock's requests to a proxy; null when they would not. */
export function toolsThroughProxyWarning(env: NodeJS.ProcessEnv): string | null {
  const found = throughProxy(env);
  if (found === null) return null;
  const proxy = proxyShown(withScheme(set(env, found.proxyVariable)!));
  return (
    `Tools started with this environment send their requests for Airlock, with its client token and your prompts, through the proxy ${proxy} (${found.proxyVariable}), ` +
    `which cannot reach this computer's Airlock: ${lackingText(found.lacking)}`
  );
}

/**
 * What connect says for a tool that takes a proxy exception only from the environment it starts in, so
 * that nothing connect writes can keep its requests for Airlock off a proxy: the NO_PROXY and no_proxy
 * to set in the shell (each keeping the entries it has, plus 127.0.0.1, as `noProxyForTool` merges them),
 * then `afterwards` when the tool needs more (a daemon to restart). Null when connect's environment
 * would not send a tool to a proxy, by the start warning's rule. Probed with Cline's CLI 3.0.65 and
 * OpenCode 1.18.33 (both on Bun, 2026-11-29): with HTTP_PROXY or http_proxy set, each sends its requests
 * for http://127.0.0.1:<port> to the proxy unless the exception it reads, `no_proxy` when set, else
 * `NO_PROXY`, names 127.0.0.1 as written.
 */
export function shellProxyBypassNote(toolTitle: string, afterwards: string | null, env: NodeJS.ProcessEnv): string | null {
  const found = throughProxy(env);
  if (found === null) return null;
  const values = NO_PROXY_WRITTEN.map((name) => `${name}=${noProxyForTool(name, undefined, env)}`);
  return (
    `${toolTitle} reads no proxy exception from its own files, so connect wrote none: with HTTP_PROXY or http_proxy set where it runs, ` +
    'it sends its requests for Airlock, with the client token and your prompts, to that proxy, which cannot reach this computer. ' +
    `Set ${values.join(' and ')} in the shell you start it from${afterwards ? `, then ${afterwards}` : ''} ` +
    `(here ${found.proxyVariable} is set and ${lackingText(found.lacking)}).`
  );
}
