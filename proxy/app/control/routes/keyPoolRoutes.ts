import express from 'express';
import { z } from 'zod';
import type { ProfileView } from '../../../contracts/profileViews.ts';
import type { PoolKeyStatus } from '../../../contracts/keyPool.ts';
import type { Profile } from '../../../contracts/profile.ts';
import type { SecretStore } from '../../../contracts/secretStore.ts';
import { cleanApiKey } from '../../../core/apiKey.ts';
import { redactKnownSecrets } from '../../../core/redact.ts';
import { requireProfile } from '../../profiles/configMutations.ts';
import {
  addPoolKey,
  PoolLabelError,
  relabelPoolKey,
  removePoolKey,
  replacePoolKey,
  type KeyPoolEditDeps,
} from '../../profiles/keyPoolEdits.ts';
import type { ControlDeps } from '../deps.ts';
import { param, type ControlContext } from '../context.ts';
import { ApiError } from '../http.ts';

const addKeySchema = z.object({ key: z.string(), label: z.string().max(200).optional() });
const labelSchema = z.object({ label: z.string().max(200) });
const secretSchema = z.object({ key: z.string() });

/** The profile as the window gets it: a pool's labels masked like the key list's. */
export function withMaskedLabels(deps: ControlDeps, profile: Profile): Profile {
  if (profile.keyPool === undefined) return profile;
  const secrets = deps.knownSecrets?.() ?? [];
  return { ...profile, keyPool: profile.keyPool.map((entry) => ({ ...entry, label: redactKnownSecrets(entry.label, secrets) })) };
}

/** Each key of a pool as the window shows it: id, label, last four characters, and whether it is cooling or rejected. */
export function poolStatusesOf(deps: ControlDeps, profile: Profile, nowMs: number): PoolKeyStatus[] {
  return (profile.keyPool ?? []).map((entry) => {
    const held = deps.keys.poolKeyStatus(profile.id, entry.id);
    return {
      id: entry.id,
      // A label written into the file by hand could hold a key: the window never gets one.
      label: redactKnownSecrets(entry.label, deps.knownSecrets?.() ?? []),
      lastFour: held.lastFour,
      status: held.set
        ? (deps.keyPools?.stateOf(profile.id, entry.id, nowMs) ?? { state: 'ready' })
        : { state: held.unread ? 'unread' : 'missing' },
    };
  });
}

/**
 * The keys of a profile's pool: added (the secret once, never sent back), relabelled, given a new
 * secret, removed. Secrets go through the key cache, so the running proxy has them at once.
 */
export function keyPoolRoutes(context: ControlContext, viewById: (id: string) => ProfileView): express.Router {
  const router = express.Router();
  const { deps } = context;
  const edits: KeyPoolEditDeps = { secrets: cachedSecrets(deps), config: deps.config };
  const cleaned = (raw: string): string => {
    const result = cleanApiKey(raw);
    if (!result.ok) throw new ApiError('invalid', result.reason, 'key');
    return result.key;
  };

  router.post('/profiles/:id/keys', async (req, res) => {
    const id = param(req.params, 'id');
    requireProfile(deps.config.snapshot(), id);
    const body = addKeySchema.parse(req.body);
    const label = body.label?.trim() ? body.label : undefined;
    await labelled(() => addPoolKey(edits, id, label, cleaned(body.key)));
    context.hub.statusChanged();
    res.status(201).json(viewById(id));
  });

  router.put('/profiles/:id/keys/:keyId', async (req, res) => {
    const id = param(req.params, 'id');
    await labelled(() => relabelPoolKey(edits, id, param(req.params, 'keyId'), labelSchema.parse(req.body).label));
    res.json(viewById(id));
  });

  router.put('/profiles/:id/keys/:keyId/secret', async (req, res) => {
    const id = param(req.params, 'id');
    const keyId = param(req.params, 'keyId');
    await replacePoolKey(edits, id, keyId, cleaned(secretSchema.parse(req.body).key));
    // What the gateway said of the old secret (a rejection, a 429) says nothing of the new one.
    deps.keyPools?.resetKey(id, keyId);
    context.hub.statusChanged();
    res.json(viewById(id));
  });

  router.delete('/profiles/:id/keys/:keyId', async (req, res) => {
    const id = param(req.params, 'id');
    const keyId = param(req.params, 'keyId');
    await removePoolKey(edits, id, keyId);
    deps.keyPools?.resetKey(id, keyId);
    context.hub.statusChanged();
    res.json(viewById(id));
  });

  return router;
}

/** A label refused is the label field's problem (400), not a conflict with the file. */
async function labelled<T>(edit: () => Promise<T>): Promise<T> {
  try {
    return await edit();
  } catch (error) {
    if (error instanceof PoolLabelError) throw new ApiError('invalid', error.message, 'label');
    throw error;
  }
}

/** The keychain as the key cache writes it: the proxy's memory follows every change at once. */
function cachedSecrets(deps: ControlDeps): SecretStore {
  return {
    get: (account) => deps.secrets.get(account),
    set: (account, secret) => deps.keys.setKey(account, secret),
    delete: (account) => deps.keys.deleteKey(account),
  };
}
