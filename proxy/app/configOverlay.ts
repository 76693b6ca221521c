import type { ConfigFile } from '../contracts/config.ts';
import { profileSchema, type Profile } from '../contracts/profile.ts';
import type { ConfigStore } from './profiles/configStore.ts';

/** The id of the profile `airlock serve --base-url` makes for one run; it is never written to the file. */
export const COMMAND_LINE_PROFILE_ID = 'command-line';

export interface ConfigSource {
  snapshot(): ConfigFile;
  onChange(listener: (config: ConfigFile) => void): () => void;
}

export interface OverlayOptions {
  /** `--profile`: the profile this run serves, whatever the file marks active. */
  activeProfileId?: string;
  /** `--base-url`: a profile for this run only, made active. */
  commandLineBaseUrl?: string;
}

/**
 * The config as this run sees it: the file, plus what the command line said for this run only.
 * The overlay is computed once per file snapshot, so the request path still only reads memory.
 */
export function overlayConfig(store: ConfigStore, options: OverlayOptions): ConfigSource {
  if (!options.activeProfileId && !options.commandLineBaseUrl) return store;
  const commandLineProfile: Profile | null = options.commandLineBaseUrl
    ? profileSchema.parse({ id: COMMAND_LINE_PROFILE_ID, name: 'Command line (--base-url)', baseUrl: options.commandLineBaseUrl })
    : null;
  let base: ConfigFile | null = null;
  let overlaid: ConfigFile | null = null;
  const apply = (file: ConfigFile): ConfigFile => {
    if (file === base && overlaid) return overlaid;
    base = file;
    const profiles = commandLineProfile
      ? [...file.profiles.filter((profile) => profile.id !== COMMAND_LINE_PROFILE_ID), commandLineProfile]
      : file.profiles;
    const activeProfileId = commandLineProfile ? COMMAND_LINE_PROFILE_ID : (options.activeProfileId ?? file.activeProfileId);
    overlaid = { ...file, profiles, activeProfileId };
    return overlaid;
  };
  return {
    snapshot: () => apply(store.snapshot()),
    onChange: (listener) => store.onChange((file) => listener(apply(file))),
  };
}
