import express from 'express';
import { z } from 'zod';
import type { BodyTextResponse, RequestPage } from '../../../contracts/requests.ts';
import type { PauseResponse } from '../../../contracts/status.ts';
import type { RequestFacets } from '../../../contracts/requestFacets.ts';
import type { ErrorClass } from '../../../contracts/errors.ts';
import { FACET_DIMENSIONS } from '../../../contracts/log.ts';
import { param, type ControlContext } from '../context.ts';
import { ApiError, notFound } from '../http.ts';
import { LiveWindow } from '../liveWindow.ts';
import { loggedWithInFlightBodies as loggedRequest } from '../loggedRequest.ts';
import { detailOf, errorTitle, summaryOf } from '../mapping.ts';
import { encodeCursor, parseRequestQuery } from '../requestQuery.ts';
import { buildSpend } from '../spend.ts';

const bodyPartSchema = z.enum(['request', 'response', 'stream-events']);
const spendRangeSchema = z.object({ range: z.enum(['today', '7d', '30d']).default('7d') });

/** Status, pause, the live channel, the request log and spend. */
export function requestRoutes(context: ControlContext): express.Router {
  const router = express.Router();
  const { deps } = context;

  router.get('/status', (_req, res) => {
    res.json(context.status());
  });

  for (const [path, paused] of [
    ['/pause', true],
    ['/resume', false],
  ] as const) {
    router.post(path, (_req, res) => {
      const proxy = context.proxy();
      if (!proxy) throw new ApiError('unavailable', 'The proxy is not listening yet.');
      proxy.setPaused(paused);
      context.hub.statusChanged();
      const body: PauseResponse = { paused: proxy.isPaused() };
      res.json(body);
    });
  }

  router.get('/events', (req, res) => {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const window = new LiveWindow(res);
    const removeClient = context.hub.addClient(window.send);
    req.on('close', () => {
      window.close();
      removeClient();
    });
  });

  // Reads first write what is queued, so a page never shows a request as in flight after its end
  // went out on the live channel (a page loaded in between would keep it "streaming").
  router.get('/requests', async (req, res) => {
    await deps.log.flush();
    const page = await deps.log.reads.listRequests(parseRequestQuery(req.query as Record<string, unknown>));
    const body: RequestPage = { items: page.rows.map(summaryOf), nextCursor: page.nextCursor ? encodeCursor(page.nextCursor) : null };
    res.json(body);
  });

  router.get('/requests/facets', async (req, res) => {
    await deps.log.flush();
    const counts = await deps.log.reads.facets(parseRequestQuery(req.query as Record<string, unknown>));
    const body = Object.fromEntries(
      FACET_DIMENSIONS.map((dimension) => [
        dimension,
        counts[dimension].map(({ value, count }) => ({
          value,
          count,
          label: dimension === 'errorClass' ? errorTitle(value as ErrorClass) : value,
        })),
      ]),
    ) as RequestFacets;
    res.json(body);
  });

  const loggedWithInFlightBodies = (id: string) => loggedRequest(context, id);

  router.get('/requests/:id', async (req, res) => {
    await deps.log.flush();
    const id = param(req.params, 'id');
    const detail = await loggedWithInFlightBodies(id);
    res.json(detailOf(detail, deps.knownSecrets?.() ?? [], await deps.log.reads.replaysOf(id)));
  });

  router.get('/requests/:id/body/:part', async (req, res) => {
    const part = bodyPartSchema.parse(param(req.params, 'part'));
    const id = param(req.params, 'id');
    const detail = await loggedWithInFlightBodies(id);
    const bodies = detail.bodies;
    const text = part === 'request' ? bodies?.requestBody : part === 'response' ? bodies?.responseBody : bodies?.rawEvents;
    if (text === null || text === undefined) throw notFound(`The ${part} body`);
    // For a stream, responseTruncated is about its events (there is no response body).
    const truncated = part === 'request' ? bodies!.requestTruncated : bodies!.responseTruncated;
    const body: BodyTextResponse = { text, truncated };
    res.json(body);
  });

  router.get('/spend', async (req, res) => {
    const { range } = spendRangeSchema.parse(req.query);
    res.json(await buildSpend(deps, range, context.nowMs()));
  });

  return router;
}
