import express from 'express';
import { z } from 'zod';
import {
  DEFAULT_SESSION_PAGE_LIMIT,
  DEFAULT_TURN_PAGE_LIMIT,
  MAX_SESSION_PAGE_LIMIT,
  MAX_TURN_PAGE_LIMIT,
  type AgentSessionPage,
  type AgentSessionTimeline,
} from '../../../contracts/agentSessions.ts';
import { sessionPage } from '../../sessions/sessionList.ts';
import { sessionTimeline } from '../../sessions/sessionTimeline.ts';
import { param, type ControlContext } from '../context.ts';
import { notFound } from '../http.ts';
import { decodeCursor, encodeCursor } from '../requestQuery.ts';

const pageQuery = (defaultLimit: number, maxLimit: number) =>
  z.object({
    cursor: z.string().trim().min(1).max(500).optional(),
    limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
  });
const listQuery = pageQuery(DEFAULT_SESSION_PAGE_LIMIT, MAX_SESSION_PAGE_LIMIT);
const turnQuery = pageQuery(DEFAULT_TURN_PAGE_LIMIT, MAX_TURN_PAGE_LIMIT);

/** Agent sessions: the list, and one session's timeline a page of turns at a time. */
export function agentSessionRoutes(context: ControlContext): express.Router {
  const router = express.Router();
  const { deps } = context;

  router.get('/agent-sessions', async (req, res) => {
    const query = listQuery.parse(req.query);
    await deps.log.flush();
    const page = await sessionPage(deps.log.reads.sessions, {
      limit: query.limit,
      ...(query.cursor ? { beforeCursor: decodeCursor(query.cursor) } : {}),
    });
    const body: AgentSessionPage = { items: page.items, nextCursor: page.nextCursor ? encodeCursor(page.nextCursor) : null };
    res.json(body);
  });

  router.get('/agent-sessions/:id', async (req, res) => {
    const query = turnQuery.parse(req.query);
    await deps.log.flush();
    const result = await sessionTimeline(
      { sessions: deps.log.reads.sessions, getRequest: deps.log.reads.getRequest },
      param(req.params, 'id'),
      {
        limit: query.limit,
        knownSecrets: deps.knownSecrets?.() ?? [],
        ...(query.cursor ? { afterCursor: decodeCursor(query.cursor) } : {}),
      },
    );
    if (result === null) throw notFound('The session');
    const body: AgentSessionTimeline = { ...result.timeline, nextCursor: result.nextCursor ? encodeCursor(result.nextCursor) : null };
    res.json(body);
  });

  return router;
}
