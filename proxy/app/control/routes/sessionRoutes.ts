import express from 'express';
import { z } from 'zod';
import { ApiError } from '../http.ts';
import { sessionCookie, type ControlSessions } from '../sessions.ts';
import type { CommandHint } from '../../../contracts/cli.ts';
import type { LoginLinkResponse } from '../../../contracts/controlApi.ts';

const sessionRequestSchema = z.union([
  z.object({ code: z.string().min(1).max(200) }),
  z.object({ controlToken: z.string().min(1).max(200) }),
]);

/** POST /session: the only unauthenticated API route; trades a one-time code or the control token for the cookie. */
export function sessionRoutes(sessions: ControlSessions, hint: CommandHint): express.Router {
  const router = express.Router();
  router.post('/session', (req, res) => {
    const request = sessionRequestSchema.parse(req.body);
    const sessionId = 'code' in request ? sessions.exchangeCode(request.code) : sessions.exchangeControlToken(request.controlToken);
    if (sessionId === null) {
      throw new ApiError(
        'unauthorized',
        'code' in request
          ? `This sign-in link was already used or has expired (links work once, for two minutes). Run \`${hint.runningCommand('window')}\` for a new one.`
          : 'That is not the control token.',
      );
    }
    res.setHeader('Set-Cookie', sessionCookie(sessionId));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ ok: true });
  });
  return router;
}

/**
 * POST /login-links: the control token only (contracts/controlApi.ts), never a session's cookie: its
 * link would trade for a fresh session, so a session could outlive its end by renewing itself.
 */
export function loginLinkRoutes(createLoginUrl: () => string, sessions: ControlSessions, hint: CommandHint): express.Router {
  const router = express.Router();
  router.post('/login-links', (req, res) => {
    if (!sessions.hasControlToken(req.headers.authorization)) {
      throw new ApiError('unauthorized', `Only the control token mints sign-in links: run \`${hint.runningCommand('window')}\`.`);
    }
    const body: LoginLinkResponse = { url: createLoginUrl() };
    res.json(body);
  });
  return router;
}
