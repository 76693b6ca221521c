import { afterAll, beforeAll, expect, it } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { cachedGatewayModels, fetchGatewayModels } from '../../../proxy/forward/gatewayModels.ts';
import { startGatewaySimulator, type GatewaySimulator } from '../../simulator/index.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * The model list cache of a long-running proxy: a gateway's list is hundreds of ids (thousands on
 * some aggregators), and a profile whose base URL is edited (a user trying URLs, a switch between a
 * gateway and its staging) must not keep one list per URL it ever had.
 */
let first: GatewaySimulator;
let second: GatewaySimulator;

beforeAll(async () => {
  first = await startGatewaySimulator({ models: ['first-a', 'first-b'] });
  second = await startGatewaySimulator({ models: ['second-a'] });
});
afterAll(async () => {
  await first.close();
  await second.close();
});

const targetAt = (profileId: string, baseUrl: string) => ({
  profile: profileSchema.parse({ id: profileId, name: 'Gateway', baseUrl }),
  apiKey: SENTINEL_KEY,
});

it("keeps one list per profile: its base URL's latest, not one per URL it ever had", async () => {
  const before = targetAt('edited', first.baseUrl);
  const after = targetAt('edited', second.baseUrl);
  expect(await fetchGatewayModels(before, Date.now(), 10_000)).toMatchObject({ ok: true, list: { ids: ['first-a', 'first-b'] } });
  expect(await fetchGatewayModels(after, Date.now(), 10_000)).toMatchObject({ ok: true, list: { ids: ['second-a'] } });
  expect(cachedGatewayModels(after.profile)?.ids).toEqual(['second-a']);
  expect(cachedGatewayModels(before.profile)).toBeNull();
});

it("leaves other profiles' lists as they are", async () => {
  const one = targetAt('one', first.baseUrl);
  const other = targetAt('other', first.baseUrl);
  await fetchGatewayModels(one, Date.now(), 10_000);
  await fetchGatewayModels(other, Date.now(), 10_000);
  await fetchGatewayModels(targetAt('other', second.baseUrl), Date.now(), 10_000);
  expect(cachedGatewayModels(one.profile)?.ids).toEqual(['first-a', 'first-b']);
  expect(cachedGatewayModels(other.profile)).toBeNull();
});
