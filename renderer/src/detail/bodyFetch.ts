import type { BodyPart, BodyTextResponse } from '../../../proxy/contracts/requests.ts';
import type { ControlClient } from '../api/client.ts';

/** A logged body the detail does not carry, fetched from the proxy. */
export type FetchBody = (part: BodyPart) => Promise<BodyTextResponse>;

/**
 * One request's bodies, each fetched once for all the detail's views: the conversation, the body
 * panel and the replay editor all read the request body, which is up to megabytes. A failed fetch is
 * forgotten, so opening a view again tries again. The detail makes one for the request it shows.
 */
export function sharedBodyFetch(api: ControlClient, requestId: string): FetchBody {
  const fetches = new Map<BodyPart, Promise<BodyTextResponse>>();
  return (part) => {
    const started = fetches.get(part);
    if (started) return started;
    const fetching = api.requestBody(requestId, part);
    fetches.set(part, fetching);
    fetching.catch(() => fetches.delete(part));
    return fetching;
  };
}
