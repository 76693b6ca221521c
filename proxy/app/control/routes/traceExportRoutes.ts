import express from 'express';
import { z } from 'zod';
import { otlpEndpointInputSchema, type ConfigFile } from '../../../contracts/config.ts';
import type { TraceExportView } from '../../../contracts/traceHeaders.ts';
import { removeTraceHeader, setTraceHeader } from '../../export/traceHeaders.ts';
import { updateSettings } from '../../profiles/configMutations.ts';
import type { ControlContext } from '../context.ts';

/** A blank field turns the export off, as clearing it in the window means. */
const endpointUpdateSchema = z.object({
  otlpEndpoint: z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? null : value), otlpEndpointInputSchema),
});
/** The rules on name and value are checked by setTraceHeader, with messages that never quote the value. */
const headerWriteSchema = z.object({ name: z.string(), value: z.string() });
const headerRemoveSchema = z.object({ name: z.string() });

/**
 * The trace export setting: the endpoint, and the headers sent with it (a collector's API key).
 * A header's value goes in and is kept in the keychain; what comes back names the headers and the
 * last four characters of each value, never a value. The running export follows the config file:
 * a change applies to the spans of the next request on.
 */
export function traceExportRoutes(context: ControlContext): express.Router {
  const router = express.Router();
  const { deps } = context;
  const stores = { secrets: deps.secrets, config: deps.config, hint: deps.commandHint };

  /** The view once the header values of this config are read, so it shows the value just set. */
  const viewOf = async (config: ConfigFile): Promise<TraceExportView> => {
    const settings = config.settings.traceExport;
    const values = await deps.traceHeaders.valuesFor(settings);
    return { otlpEndpoint: settings.otlpEndpoint, headers: deps.traceHeaders.views(settings.headerNames), headersProblem: values.problem };
  };

  router.get('/settings/trace-export', async (_req, res) => {
    res.json(await viewOf(deps.config.snapshot()));
  });

  router.put('/settings/trace-export', async (req, res) => {
    const { otlpEndpoint } = endpointUpdateSchema.parse(req.body);
    const config = await deps.config.update((current) =>
      updateSettings(current, { traceExport: { ...current.settings.traceExport, otlpEndpoint } }),
    );
    res.json(await viewOf(config));
  });

  router.put('/settings/trace-export/headers', async (req, res) => {
    const { name, value } = headerWriteSchema.parse(req.body);
    res.json(await viewOf(await setTraceHeader(stores, name, value)));
  });

  // The name in the query, not the path: a token may be `..` or hold `%`, which a path would not keep.
  router.delete('/settings/trace-export/headers', async (req, res) => {
    const { name } = headerRemoveSchema.parse(req.query);
    res.json(await viewOf(await removeTraceHeader(stores, name)));
  });

  return router;
}
