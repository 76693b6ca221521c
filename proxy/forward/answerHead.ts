import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Airlock's own answer headers (the request id, who answered, the fallbacks) wait beside the
 * response until its head is written, then go first, before the answer's own, in one flat list.
 * Set through Node's setHeader, they made writeHead merge every answer header into Node's header
 * map one by one, a setHeader each: with the map, its entries and the head built from it, about
 * 1.5 KB a forwarded request (V8's sampling heap profiler; DESIGN.md, "Performance and memory").
 * Given a list while no header is set, Node writes the list as it is.
 */
const OWN_HEADERS = Symbol('airlock.ownHeaders');

type WithOwnHeaders = ServerResponse & { [OWN_HEADERS]?: string[] };

/** Sets one of Airlock's own headers (lower-case name): replaced if already set, else after those set before. */
export function setOwnHeader(res: ServerResponse, name: string, value: string): void {
  const answer = res as WithOwnHeaders;
  const own = answer[OWN_HEADERS];
  if (own === undefined) {
    answer[OWN_HEADERS] = [name, value];
    return;
  }
  for (let index = 0; index < own.length; index += 2) {
    if (own[index] === name) {
      own[index + 1] = value;
      return;
    }
  }
  // A copy of its exact size: a push would grow the two-name list to room for nineteen.
  answer[OWN_HEADERS] = own.concat(name, value);
}

/**
 * res.writeHead with Airlock's own headers first. Where another header was set on the response
 * (a stalled upload's `connection: close`), or `headers` has a name of Airlock's own or one not in
 * lower case (Node's map joins names that differ in case only), they are merged through Node's
 * map as before: Airlock's own first, then those set since, then `headers`.
 */
export function writeAnswerHead(res: ServerResponse, status: number, headers: OutgoingHttpHeaders = {}): void {
  const own = (res as WithOwnHeaders)[OWN_HEADERS];
  if (own === undefined) {
    res.writeHead(status, headers);
    return;
  }
  if (res.getHeaderNames().length > 0 || !listable(own, headers)) {
    mergeThroughNode(res, own);
    res.writeHead(status, headers);
    return;
  }
  // Made at its size, not grown push by push.
  let names = 0;
  for (const _name in headers) names += 1;
  const list = new Array<OutgoingHttpHeader>(own.length + 2 * names);
  let at = 0;
  for (; at < own.length; at += 1) list[at] = own[at] as string;
  for (const name in headers) {
    list[at] = name;
    list[at + 1] = headers[name] as OutgoingHttpHeader;
    at += 2;
  }
  res.writeHead(status, list);
}

/** Whether `headers` can follow Airlock's own in one list and read as Node's merge would have made it. */
function listable(own: readonly string[], headers: OutgoingHttpHeaders): boolean {
  for (let index = 0; index < own.length; index += 2) if (Object.hasOwn(headers, own[index] as string)) return false;
  for (const name in headers) if (name.toLowerCase() !== name) return false;
  return true;
}

/**
 * Airlock's own headers into Node's map ahead of those set since, the order setting them at once
 * gave. Node gives the names set lower-cased; every name set on a forwarded answer is.
 */
function mergeThroughNode(res: ServerResponse, own: readonly string[]): void {
  const others = res.getHeaderNames().map((name) => [name, res.getHeader(name)] as const);
  for (const [name] of others) res.removeHeader(name);
  for (let index = 0; index < own.length; index += 2) res.setHeader(own[index] as string, own[index + 1] as string);
  for (const [name, value] of others) if (value !== undefined) res.setHeader(name, value);
}
