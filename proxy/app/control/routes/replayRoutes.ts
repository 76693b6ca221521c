import express from 'express';
import { z } from 'zod';
import type { ReplayRefusalCode } from '../../../contracts/replay.ts';
import { param, type ControlContext } from '../context.ts';
import { ApiError } from '../http.ts';
import { loggedWithInFlightBodies } from '../loggedRequest.ts';
import { ReplayRefusedError, replayRequest } from '../../replay/replayService.ts';

const replayRequestSchema = z.object({
  body: z.string().optional(),
  profileId: z.string().trim().min(1).optional(),
  idempotencyKey: z.string().trim().min(1).max(255).optional(),
});

/** The part of the replay request a refusal points at, for the window to mark. */
const FIELD_OF: Record<ReplayRefusalCode, string | undefined> = {
  not_a_request: undefined,
  path_redacted: undefined,
  body_not_stored: 'body',
  body_truncated: 'body',
  body_redacted: 'body',
  invalid_json: 'body',
  side_effect_without_key: 'idempotencyKey',
  no_profile: 'profileId',
};

/** POST /requests/:id/replay: the logged request sent again through the proxy, and both answers. */
export function replayRoutes(context: ControlContext): express.Router {
  const router = express.Router();
  const { deps } = context;

  router.post('/requests/:id/replay', async (req, res) => {
    const request = replayRequestSchema.parse(req.body ?? {});
    const proxy = context.proxy();
    if (!proxy || !deps.replayGrants) throw new ApiError('unavailable', 'The proxy is not listening yet: replay again in a moment.');
    if (proxy.isPaused())
      throw new ApiError('conflict', 'Airlock is paused, so a replay would be refused like any request. Resume Airlock, then replay.');
    await deps.log.flush();
    const original = await loggedWithInFlightBodies(context, param(req.params, 'id'));
    // The window closing mid-replay ends it as a client leaving would.
    const left = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) left.abort();
    });
    try {
      const answer = await replayRequest(
        original,
        request,
        {
          proxyUrl: proxy.url,
          events: proxy.events,
          grants: deps.replayGrants,
          config: deps.config.snapshot(),
          readRequest: (id) => deps.log.reads.getRequest(id),
          flushLog: () => deps.log.flush(),
          knownSecrets: () => deps.knownSecrets?.() ?? [],
          commandHint: deps.commandHint,
        },
        left.signal,
      );
      res.json(answer);
    } catch (error) {
      // Its caller left (Ctrl-C on `airlock replay`, the window reloading): the replay's row already
      // says client_aborted, and there is no one to answer.
      if (left.signal.aborted) return;
      if (error instanceof ReplayRefusedError) {
        const { code } = error.refusal;
        throw new ApiError(code === 'invalid_json' ? 'invalid' : 'conflict', error.message, FIELD_OF[code]);
      }
      throw error;
    }
  });

  return router;
}
