import express from 'express';
import { z } from 'zod';
import packageJson from '../../../../package.json' with { type: 'json' };
import { REQUEST_EXPORT_FORMATS, SPEND_EXPORT_GROUPS, spendGroupByOf } from '../../../contracts/export.ts';
import { spendCsv } from '../../export/csv.ts';
import { EXPORT_CONTENT_TYPES, exportFileName, writeRequestExport } from '../../export/requestExport.ts';
import type { ControlContext } from '../context.ts';
import { parseRequestQuery } from '../requestQuery.ts';
import { rangeStartMs } from '../spend.ts';

const requestExportSchema = z.object({ format: z.enum(REQUEST_EXPORT_FORMATS) });
const spendExportSchema = z.object({
  format: z.literal('csv').default('csv'),
  range: z.enum(['today', '7d', '30d']).default('30d'),
  groupBy: z.enum(SPEND_EXPORT_GROUPS).default('model'),
});

function attachment(res: express.Response, contentType: string, fileName: string): void {
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
}

/** Downloads of the request log (HAR, CSV) and spend (CSV); the trace export setting is in traceExportRoutes.ts. */
export function exportRoutes(context: ControlContext): express.Router {
  const router = express.Router();
  const { deps } = context;

  router.get('/export/requests', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const { format } = requestExportSchema.parse(query);
    const { beforeCursor: _cursor, limit: _limit, ...filter } = parseRequestQuery(query);
    await deps.log.flush();
    attachment(res, EXPORT_CONTENT_TYPES[format], exportFileName('requests', format, context.nowMs()));
    try {
      await writeRequestExport(deps.log.reads, res, {
        format,
        filter,
        proxyUrl: context.proxy()?.url ?? 'http://127.0.0.1',
        knownSecrets: deps.knownSecrets?.() ?? [],
        airlockVersion: packageJson.version,
      });
      res.end();
    } catch (error) {
      // Past the first bytes no error body can be sent: a cut download is what the client sees.
      if (!res.headersSent) throw error;
      res.destroy();
    }
  });

  router.get('/export/spend', async (req, res) => {
    const { range, groupBy } = spendExportSchema.parse(req.query);
    const nowMs = context.nowMs();
    const rows = await deps.log.reads.spendByDay({ fromMs: rangeStartMs(range, nowMs), toMs: nowMs + 1, groupBy: spendGroupByOf(groupBy) });
    attachment(res, EXPORT_CONTENT_TYPES['spend-csv'], exportFileName('spend', 'csv', nowMs));
    res.send(spendCsv(rows, spendGroupByOf(groupBy)));
  });

  return router;
}
