import express from 'express';
import { z } from 'zod';
import type { CapabilityCheckResponse } from '../../../contracts/models.ts';
import type { ClientResumeResponse, TokenListResponse, TokenSecretResponse } from '../../../contracts/clientTokens.ts';
import { burstLimitsSchema, CLIENT_TOKEN_NAME_PATTERN, type BurstLimits } from '../../../contracts/config.ts';
import { generateToken, tokenRecord } from '../../../http/clientTokens.ts';
import { addClientToken, removeClientToken, updateSettings } from '../../profiles/configMutations.ts';
import { clientTokenAccount, KeychainUnavailableError } from '../../../contracts/secretStore.ts';
import { param, type ControlContext } from '../context.ts';
import { ApiError } from '../http.ts';
import { settingUpdateSchema } from '../settingUpdate.ts';

const createTokenSchema = z.object({
  name: z.string().regex(CLIENT_TOKEN_NAME_PATTERN, 'letters, digits, ., - and _ (at most 64)'),
  pinnedProfileId: z.string().min(1).nullable().optional(),
});

const burstLimitsUpdateSchema = settingUpdateSchema({
  maxRequestsPerMinute: burstLimitsSchema.shape.maxRequestsPerMinute.unwrap(),
  maxCreditsPerMinute: burstLimitsSchema.shape.maxCreditsPerMinute.unwrap(),
});

/** Client tokens, the burst guard (its limits, resuming a paused client), and the model list. */
export function clientRoutes(context: ControlContext): express.Router {
  const router = express.Router();
  const { deps } = context;

  // A token the keychain does not hold (created without one) cannot be shown again: the window marks it.
  const isRevealable = async (name: string): Promise<boolean> => {
    try {
      return (await deps.secrets.get(clientTokenAccount(name))) !== null;
    } catch (error) {
      if (error instanceof KeychainUnavailableError) return false;
      throw error;
    }
  };

  router.get('/tokens', async (_req, res) => {
    const config = deps.config.snapshot();
    const paused = new Set((deps.spendGate?.pausedClients() ?? []).map((pause) => pause.clientName));
    const revealable = await Promise.all(config.clientTokens.map((token) => isRevealable(token.name)));
    const body: TokenListResponse = {
      tokens: config.clientTokens.map((token, index) => ({
        name: token.name,
        pinnedProfileId: token.profileId,
        createdAtMs: token.createdAtMs,
        paused: paused.has(token.name),
        revealable: revealable[index] ?? false,
      })),
      required: config.settings.requireClientToken,
    };
    res.json(body);
  });

  router.post('/tokens', async (req, res) => {
    const { name, pinnedProfileId = null } = createTokenSchema.parse(req.body);
    const token = generateToken();
    try {
      // Kept in the keychain so the window can show it again later.
      await deps.secrets.set(clientTokenAccount(name), token);
    } catch (error) {
      // Without a keychain the token still works; this response is then the only time it is shown.
      if (!(error instanceof KeychainUnavailableError)) throw error;
    }
    await deps.config.update((config) => addClientToken(config, tokenRecord(name, token, pinnedProfileId, context.nowMs())));
    context.hub.statusChanged();
    const body: TokenSecretResponse = { name, token, pinnedProfileId };
    res.status(201).setHeader('Cache-Control', 'no-store').json(body);
  });

  router.get('/tokens/:name/reveal', async (req, res) => {
    const name = param(req.params, 'name');
    const record = deps.config.snapshot().clientTokens.find((token) => token.name === name);
    if (!record) throw new ApiError('not_found', `No client token named "${name}".`);
    const token = await deps.secrets.get(clientTokenAccount(name));
    if (!token)
      throw new ApiError(
        'not_found',
        `Client token "${name}" is not in the keychain (it was created without one): revoke it and create a new one.`,
      );
    const body: TokenSecretResponse = { name, token, pinnedProfileId: record.profileId };
    res.setHeader('Cache-Control', 'no-store').json(body);
  });

  router.delete('/tokens/:name', async (req, res) => {
    const name = param(req.params, 'name');
    await deps.config.update((config) => removeClientToken(config, name));
    try {
      await deps.secrets.delete(clientTokenAccount(name));
    } catch (error) {
      // The token no longer opens the proxy (its record is gone); a leftover keychain copy is harmless.
      if (!(error instanceof KeychainUnavailableError)) throw error;
    }
    res.status(204).end();
  });

  router.post('/clients/:name/resume', (req, res) => {
    if (!deps.spendGate) throw new ApiError('unavailable', 'The burst guard is not running in this proxy.');
    const name = param(req.params, 'name');
    // A client is a client token's name (or a paused one whose token was revoked since): a typo is refused, not "not paused".
    const known = [
      ...new Set([
        ...deps.config.snapshot().clientTokens.map((token) => token.name),
        ...deps.spendGate.pausedClients().map((pause) => pause.clientName),
      ]),
    ];
    if (!known.includes(name)) {
      throw new ApiError(
        'not_found',
        known.length > 0
          ? `No client named "${name}" (clients: ${known.join(', ')}).`
          : `No client named "${name}": no client token exists yet.`,
      );
    }
    const body: ClientResumeResponse = { resumed: deps.spendGate.resumeClient(name) };
    context.hub.statusChanged();
    res.json(body);
  });

  router.get('/burst-limits', (_req, res) => {
    const body: BurstLimits = deps.config.snapshot().settings.burstLimits;
    res.json(body);
  });

  // The running guard reads the limits from the config at each request: saved here, they apply to the next one.
  router.put('/burst-limits', async (req, res) => {
    const changes = burstLimitsUpdateSchema.parse(req.body);
    const config = await deps.config.update((current) =>
      updateSettings(current, { burstLimits: { ...current.settings.burstLimits, ...changes } }),
    );
    const body: BurstLimits = config.settings.burstLimits;
    res.json(body);
  });

  router.get('/models', async (req, res) => {
    res.json(await context.catalog.list(deps, req.query.refresh === '1', context.nowMs()));
  });

  router.post('/models/:model/capabilities', async (req, res) => {
    const model = param(req.params, 'model');
    const body: CapabilityCheckResponse = { model, capabilities: await context.catalog.checkCapabilities(deps, model) };
    res.json(body);
  });

  return router;
}
