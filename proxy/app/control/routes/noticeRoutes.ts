import express from 'express';
import type { NoticeDismissResponse } from '../../../contracts/notices.ts';
import { param, type ControlContext } from '../context.ts';
import { ApiError } from '../http.ts';

/** The run's notices are in the status; the window dismisses one here (it comes back if it happens again). */
export function noticeRoutes(context: ControlContext): express.Router {
  const router = express.Router();
  const { deps } = context;

  router.post('/notices/:id/dismiss', (req, res) => {
    if (!deps.notices?.dismiss(param(req.params, 'id'))) {
      throw new ApiError('not_found', 'No such notice: it was dismissed already, or a newer one of its kind replaced it.');
    }
    const body: NoticeDismissResponse = { notices: context.status().notices };
    res.json(body);
  });

  return router;
}
