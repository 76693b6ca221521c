import express from 'express';
import { z } from 'zod';
import { ApiError } from '../http.ts';
import { sessionCookie, type ControlSessions } from '../sessions.ts';
import { CLI_COMMAND } from '../../../contracts/cli.ts';
import type { LoginLinkResponse } from '../../../contracts/controlApi.ts';

const sessionRequestSchema = z.union([
  z.object({ code: z.string().min(1).max(200) }),
  z.object({ controlToken: z.string().min(1).max(200) }),
]);

/** POST /session: the only unauthenticated API route; trades a one-time code or the control token for the cookie. */
export function sessionRoutes(sessions: ControlSessions): express.Router {
  const router = express.Router();
  router.post('/session', (req, res) => {
    const request = sessionRequestSchema.parse(req.body);
    const sessionId = 'code' in request ? sessions.exchangeCode(request.code) : sessions.exchangeControlToken(request.controlToken);
    if (sessionId === null) {
      throw new ApiError(
        'unauthorized',
        'code' in request
          ? `This sign-in link was already used or has expired (links work once, for two minutes). Run \`${CLI_COMMAND} window\` for a new one.`
          : 'That is not the control token.',
      );
    }
    res.setHeader('Set-Cookie', sessionCookie(sessionId));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ ok: true });
  });
  return router;
}

/** POST /login-links: behind the control token, so only who may use the window already can mint a way into it. */
export function loginLinkRoutes(createLoginUrl: () => string): express.Router {
  const router = express.Router();
  router.post('/login-links', (_req, res) => {
    const body: LoginLinkResponse = { url: createLoginUrl() };
    res.json(body);
  });
  return router;
}
