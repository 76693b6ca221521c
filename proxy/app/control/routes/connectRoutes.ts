import express from 'express';
import { connectRequestSchema, connectToolIdSchema, type ConnectToolId } from '../../../contracts/connect.ts';
import type { ConnectService } from '../../connect/connectService.ts';
import { param, type ControlContext } from '../context.ts';
import { ApiError } from '../http.ts';
import { CLI_COMMAND } from '../../../contracts/cli.ts';

/** Connect: list the tools, preview a setup, apply it, undo it, delete its backups (proxy/app/connect does the work). */
export function connectRoutes(context: ControlContext): express.Router {
  const router = express.Router();
  const service = (): ConnectService => {
    if (!context.deps.connect)
      throw new ApiError('unavailable', `Connect is not available in this proxy: start it with \`${CLI_COMMAND} serve\` or the app.`);
    return context.deps.connect;
  };
  const tool = (params: Record<string, string | string[] | undefined>): ConnectToolId => connectToolIdSchema.parse(param(params, 'tool'));

  router.get('/connect', async (_req, res) => {
    res.json(await service().list());
  });

  router.post('/connect/:tool/plan', async (req, res) => {
    res.json(await service().plan(tool(req.params), connectRequestSchema.parse(req.body ?? {})));
  });

  router.post('/connect/:tool/apply', async (req, res) => {
    const body = await service().apply(tool(req.params), connectRequestSchema.parse(req.body ?? {}));
    // A new token or an imported profile shows in the status bar and the other screens.
    context.hub.statusChanged();
    res.json(body);
  });

  router.post('/connect/:tool/undo', async (req, res) => {
    res.json(await service().undo(tool(req.params)));
  });

  router.delete('/connect/:tool/backups', async (req, res) => {
    res.json(await service().forgetBackups(tool(req.params)));
  });

  return router;
}
