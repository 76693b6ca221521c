/** A model of one gateway (a profile at a base URL): what a gateway refused is learned per this. */
export interface GatewayModel {
  profileId: string;
  baseUrl: string;
  model: string;
}

/**
 * How many (profile, base URL, model) entries a store of what was learned keeps. Model names come
 * from clients and base URLs from edits, so a proxy left running would otherwise keep one entry per
 * name it ever saw; a gateway lists a few hundred models at most. One forgotten costs one 400 that
 * ran nothing, then is learned again.
 */
export const MAX_MODELS_REMEMBERED = 1024;

/**
 * What was learned of each gateway model (reasoningEffortRefusals.ts, maxTokensRefusals.ts), the
 * MAX_MODELS_REMEMBERED learned of last: an entry set again moves to the newest place, and past the
 * bound the one learned of longest ago is forgotten. Another base URL is another gateway, whose
 * models may take what this one refused.
 */
export class LearnedModels<Entry extends GatewayModel> {
  /** In the order last learned (a Map keeps insertion order): the first is the one to forget. */
  private readonly entries = new Map<string, Entry>();

  get(profileId: string, baseUrl: string, model: string): Entry | undefined {
    return this.entries.get(keyOf(profileId, baseUrl, model));
  }

  set(entry: Entry): void {
    const key = keyOf(entry.profileId, entry.baseUrl, entry.model);
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_MODELS_REMEMBERED) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  values(): Entry[] {
    return [...this.entries.values()];
  }
}

function keyOf(profileId: string, baseUrl: string, model: string): string {
  return `${profileId}\n${baseUrl}\n${model}`;
}
