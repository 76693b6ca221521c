import { isDeepStrictEqual } from 'node:util';
import express from 'express';
import { z } from 'zod';
import type {
  ActivateResponse,
  BaseUrlPreview,
  KeyStatus,
  PriceTable,
  ProfileListResponse,
  ProfileView,
} from '../../../contracts/profileViews.ts';
import type { ConfigFile } from '../../../contracts/config.ts';
import { modelPriceSchema, priceMultiplierSchema, profileSchema, type Profile } from '../../../contracts/profile.ts';
import { exportPricesCsv, exportPricesJson, importPricesCsv, importPricesJson } from '../../../spend/pricesIo.ts';
import { cleanApiKey } from '../../../core/apiKey.ts';
import { normalizeBaseUrl } from '../../../core/baseUrl.ts';
import { isLocalRefusal } from '../../../contracts/ports.ts';
import {
  addProfile,
  bumpKeysRevision,
  ConfigEditError,
  removeProfile,
  requireProfile,
  setActiveProfile,
  updateProfile,
} from '../../profiles/configMutations.ts';
import { param, type ControlContext } from '../context.ts';
import { ApiError } from '../http.ts';
import { checkProfileSwitch } from '../profileSwitch.ts';
import { runProfileTest } from '../profileTest.ts';
import { settingUpdateSchema } from '../settingUpdate.ts';
import { keyPoolRoutes, poolStatusesOf, withMaskedLabels } from './keyPoolRoutes.ts';
import { keyAccountsOf } from '../../../contracts/keyPool.ts';

const keySchema = z.object({ key: z.string() });
const testSchema = z.object({ model: z.string().trim().min(1).max(200).optional() });
/** The table, the multiplier or both: the profile form edits the multiplier too, and either may have saved it last. */
const priceTableUpdateSchema = settingUpdateSchema({ prices: z.array(modelPriceSchema), priceMultiplier: priceMultiplierSchema });
const priceFormatSchema = z.enum(['json', 'csv']);
const priceImportSchema = z.object({ format: priceFormatSchema, text: z.string().max(5 * 1024 * 1024) });

/** The profile's fields without its id: PUT changes the fields it sends. */
const profileUpdateSchema = profileSchema.omit({ id: true, keyPool: true }).partial();
/** Each field's value as the form was filled, compared as sent (not through the schema's defaults). */
const expectedSchema = z.record(z.string(), z.unknown()).optional();

/**
 * A form filled before the CLI (`profile fallback add`), a hand edit or another window changed a
 * setting it then saves would write that setting back as it was: refused instead (409), the
 * change made elsewhere kept. Fields the form did not change are not sent, so never refused.
 */
function refuseChangedElsewhere(config: ConfigFile, id: string, filledWith: Record<string, unknown> | undefined): ConfigFile {
  const profile = requireProfile(config, id) as Record<string, unknown>;
  for (const [field, value] of Object.entries(filledWith ?? {})) {
    if (!isDeepStrictEqual(profile[field], value)) {
      throw new ConfigEditError(
        `${field} of profile "${id}" changed elsewhere (the CLI, airlock.json or another window) since the form was filled: reload the profile, then make the change again`,
      );
    }
  }
  return config;
}

/** Profiles, their keys (write-only), Test, prices, and the base URL preview. */
export function profileRoutes(context: ControlContext): express.Router {
  const router = express.Router();
  const { deps } = context;

  const viewOf = (config: ConfigFile, profile: Profile): ProfileView => ({
    profile: withMaskedLabels(deps, profile),
    active: config.activeProfileId === profile.id,
    key: deps.keys.keyStatus(profile.id, profile.keyPool),
    ...(profile.keyPool ? { keyPool: poolStatusesOf(deps, profile, context.nowMs()) } : {}),
  });
  const viewById = (config: ConfigFile, id: string): ProfileView => viewOf(config, requireProfile(config, id));
  const changed = () => context.hub.statusChanged();
  router.use(keyPoolRoutes(context, (id) => viewById(deps.config.snapshot(), id)));

  router.get('/profiles', (_req, res) => {
    const config = deps.config.snapshot();
    const problem = deps.keys.keychainProblem();
    const body: ProfileListResponse = {
      profiles: config.profiles.map((profile) => viewOf(config, profile)),
      activeProfileId: config.activeProfileId,
      keychain: { available: problem === null, message: problem },
    };
    res.json(body);
  });

  router.post('/profiles', async (req, res) => {
    // A pool's keys are added one by one with their secrets (keyPoolRoutes.ts), never as a bare list.
    const { keyPool: _keyPool, ...input } = profileSchema.parse(req.body);
    await deps.config.update((current) => addProfile(current, input));
    changed();
    res.status(201).json(viewById(deps.config.snapshot(), input.id));
  });

  router.put('/profiles/:id', async (req, res) => {
    const id = param(req.params, 'id');
    const { expected, ...body } = (req.body ?? {}) as Record<string, unknown>;
    // Only the fields sent: the schema's defaults must not reset the ones left out (prices, budget…).
    const patch = Object.fromEntries(Object.entries(profileUpdateSchema.parse(body)).filter(([field]) => field in body));
    const filledWith = expectedSchema.parse(expected);
    await deps.config.update((current) => updateProfile(refuseChangedElsewhere(current, id, filledWith), id, patch));
    changed();
    res.json(viewById(deps.config.snapshot(), id));
  });

  router.get('/profiles/:id/switch-check', async (req, res) => {
    const profile = requireProfile(deps.config.snapshot(), param(req.params, 'id'));
    res.json(await checkProfileSwitch(deps, profile, context.proxy()?.inFlightCount() ?? 0, context.nowMs()));
  });

  router.delete('/profiles/:id', async (req, res) => {
    const id = param(req.params, 'id');
    let removed = requireProfile(deps.config.snapshot(), id);
    await deps.config.update((current) => {
      // As it is in the file: a pool key another writer (the CLI) added since the snapshot is deleted too.
      removed = requireProfile(current, id);
      return removeProfile(current, id);
    });
    // Every key of a pool too: none stays behind in the keychain.
    let deleted = false;
    for (const account of keyAccountsOf(removed)) deleted = (await deps.keys.deleteKey(account)) || deleted;
    if (deleted) await deps.config.update(bumpKeysRevision);
    changed();
    res.status(204).end();
  });

  router.put('/profiles/:id/key', async (req, res) => {
    const id = param(req.params, 'id');
    requireProfile(deps.config.snapshot(), id);
    const cleaned = cleanApiKey(keySchema.parse(req.body).key);
    if (!cleaned.ok) throw new ApiError('invalid', cleaned.reason, 'key');
    await deps.keys.setKey(id, cleaned.key);
    await deps.config.update(bumpKeysRevision);
    // The breaker and the alarm were about the old key; the next request tries the new one.
    deps.spendGate?.resetAuthBreaker(id);
    context.hub.keyReplaced(id);
    const body: KeyStatus = deps.keys.keyStatus(id);
    res.json(body);
  });

  router.delete('/profiles/:id/key', async (req, res) => {
    const id = param(req.params, 'id');
    requireProfile(deps.config.snapshot(), id);
    if (await deps.keys.deleteKey(id)) await deps.config.update(bumpKeysRevision);
    changed();
    res.json(deps.keys.keyStatus(id));
  });

  router.post('/profiles/:id/activate', async (req, res) => {
    const id = param(req.params, 'id');
    await deps.config.update((current) => setActiveProfile(current, id));
    changed();
    const body: ActivateResponse = { activeProfileId: id };
    res.json(body);
  });

  router.post('/profiles/:id/test', async (req, res) => {
    const id = param(req.params, 'id');
    requireProfile(deps.config.snapshot(), id);
    const { model } = testSchema.parse(req.body ?? {});
    const target = deps.targets.resolve({ tokenName: null, pinnedProfileId: id });
    if (isLocalRefusal(target)) throw new ApiError('invalid', target.message);
    res.json(await runProfileTest(target, model));
  });

  router.get('/profiles/:id/prices', (req, res) => {
    const profile = requireProfile(deps.config.snapshot(), param(req.params, 'id'));
    const body: PriceTable = { prices: profile.prices, priceMultiplier: profile.priceMultiplier };
    res.json(body);
  });

  /** Only what is given changes: an import leaves the multiplier as the file has it, whoever saved it last. */
  const savePrices = async (id: string, table: Partial<PriceTable>): Promise<PriceTable> => {
    const config = await deps.config.update((current) => updateProfile(current, id, table));
    const profile = requireProfile(config, id);
    return { prices: profile.prices, priceMultiplier: profile.priceMultiplier };
  };

  router.put('/profiles/:id/prices', async (req, res) => {
    res.json(await savePrices(param(req.params, 'id'), priceTableUpdateSchema.parse(req.body)));
  });

  router.post('/profiles/:id/prices/import', async (req, res) => {
    const id = param(req.params, 'id');
    const { format, text } = priceImportSchema.parse(req.body);
    const prices = format === 'csv' ? importPricesCsv(text) : importPricesJson(text);
    res.json(await savePrices(id, { prices }));
  });

  router.get('/profiles/:id/prices/export', (req, res) => {
    const id = param(req.params, 'id');
    const format = priceFormatSchema.parse(req.query.format ?? 'json');
    const prices = requireProfile(deps.config.snapshot(), id).prices;
    res.type(format === 'csv' ? 'text/csv' : 'application/json');
    res.setHeader('Content-Disposition', `attachment; filename="airlock-prices-${id}.${format}"`);
    res.send(format === 'csv' ? exportPricesCsv(prices) : exportPricesJson(prices));
  });

  router.get('/base-url', (req, res) => {
    const result = normalizeBaseUrl(typeof req.query.value === 'string' ? req.query.value : '');
    const body: BaseUrlPreview = result.ok
      ? { normalized: result.baseUrl, error: null, notes: result.warning ? [result.warning] : [] }
      : { normalized: null, error: result.reason, notes: [] };
    res.json(body);
  });

  return router;
}
