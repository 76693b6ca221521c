import express from 'express';
import { memoryLimitsSchema, type MemoryLimits } from '../../../contracts/config.ts';
import { updateSettings } from '../../profiles/configMutations.ts';
import type { ControlContext } from '../context.ts';
import { settingUpdateSchema } from '../settingUpdate.ts';

const memoryLimitsUpdateSchema = settingUpdateSchema({
  logBacklogMiB: memoryLimitsSchema.shape.logBacklogMiB.unwrap(),
  bodyCaptureKiB: memoryLimitsSchema.shape.bodyCaptureKiB.unwrap(),
});

/** What the request log may hold in memory: read by the running proxy at each request, so a change applies to the next one. */
export function memoryRoutes(context: ControlContext): express.Router {
  const router = express.Router();
  const { deps } = context;

  router.get('/settings/memory', (_req, res) => {
    const body: MemoryLimits = deps.config.snapshot().settings.memoryLimits;
    res.json(body);
  });

  router.put('/settings/memory', async (req, res) => {
    const changes = memoryLimitsUpdateSchema.parse(req.body);
    const config = await deps.config.update((current) =>
      updateSettings(current, { memoryLimits: { ...current.settings.memoryLimits, ...changes } }),
    );
    const body: MemoryLimits = config.settings.memoryLimits;
    res.json(body);
  });

  return router;
}
