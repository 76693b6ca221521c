import type { StoredRequest } from '../../contracts/log.ts';
import type { ControlContext } from './context.ts';
import { ApiError } from './http.ts';

/**
 * A request as the log's read side holds it. In flight, the log has the row but not yet the
 * bodies, so the request as read comes from the live hub.
 */
export async function loggedWithInFlightBodies(context: ControlContext, id: string): Promise<StoredRequest> {
  const logged = await context.deps.log.reads.getRequest(id);
  if (!logged) throw new ApiError('not_found', `Request ${id} was not found in the log (a mistyped id, or retention removed it).`);
  const inFlight = logged.bodies === null ? context.hub.inFlightRequest(id) : null;
  if (!inFlight) return logged;
  return {
    ...logged,
    bodies: {
      ...inFlight,
      responseHeaders: {},
      responseBody: null,
      responseTruncated: false,
      streamText: null,
      rawEvents: null,
      rawEventOffsetsMs: null,
    },
  };
}
