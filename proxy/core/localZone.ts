import { readlinkSync, statSync } from 'node:fs';

/**
 * How often the OS's time zone is looked at. V8 reads the zone once and keeps it, so a laptop
 * carried across zones counted days and months in the zone Airlock started in until a restart;
 * a day cap that follows a minute late does no harm, a look per request would cost every request.
 */
export const ZONE_CHECK_INTERVAL_MS = 60_000;

/**
 * What the OS says its zone is: an IANA name when it can be read cheaply, any other text that
 * changes when the setting does (it is then detected again by V8), or null when it cannot be told
 * without asking V8 to detect it again.
 */
export type OsZoneReader = () => string | null;

export interface LocalZoneWatchOptions {
  readOsZone: OsZoneReader;
  /** Told the zone local times follow from now on, once they do. */
  onChange(zone: string): void;
}

/**
 * Makes the process's local time (Date's local methods, and so every local day and month) follow
 * the OS's zone while it runs. Node re-reads the zone when process.env.TZ is set or deleted (on
 * this thread's isolate: local periods are computed on the main thread only).
 */
export class LocalZoneWatch {
  readonly #options: LocalZoneWatchOptions;
  #lastCheckMs: number | null = null;
  #lastReading: string | null = null;
  #zone = localZoneName();

  constructor(options: LocalZoneWatchOptions) {
    this.#options = options;
  }

  /** Looks at the OS's zone unless it was looked at less than a minute ago; true when local time now follows a new zone. */
  check(nowMs: number): boolean {
    // A clock stepped back counts as time passed, or a watch would wait until it caught up.
    if (this.#lastCheckMs !== null && nowMs >= this.#lastCheckMs && nowMs - this.#lastCheckMs < ZONE_CHECK_INTERVAL_MS) return false;
    const first = this.#lastCheckMs === null;
    this.#lastCheckMs = nowMs;
    const reading = this.#options.readOsZone();
    const changed = reading !== this.#lastReading;
    this.#lastReading = reading;
    // The first reading is the zone the process started in: V8 read the same setting at start.
    if (first && reading !== null) return false;
    if (reading === null) redetectZone();
    else if (changed) {
      if (isZoneName(reading)) process.env.TZ = reading;
      else redetectZone();
    }
    const zone = localZoneName();
    if (zone === this.#zone) return false;
    this.#zone = zone;
    this.#options.onChange(zone);
    return true;
  }
}

/**
 * The OS's zone as this platform lets it be read cheaply. A TZ set when the process started is
 * the user's choice for it, kept. Linux and macOS name it by the /etc/localtime link; Windows has
 * no such file, so V8 is asked to detect the zone again at each look.
 */
export function osZoneReader(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): OsZoneReader {
  const chosen = env.TZ;
  if (chosen !== undefined && chosen !== '') return () => chosen;
  if (platform === 'win32') return () => null;
  return () => localtimeLinkZone('/etc/localtime');
}

/**
 * `Europe/Paris` from a link to `/usr/share/zoneinfo/Europe/Paris` (or `/var/db/timezone/zoneinfo/...`
 * on macOS). A copied zone file is told by its identity instead: detecting its zone makes ICU
 * compare it with every file under zoneinfo, too much to do each minute when nothing changed.
 */
export function localtimeLinkZone(linkPath: string): string | null {
  let target: string;
  try {
    target = readlinkSync(linkPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL') return null;
    const copied = statSync(linkPath, { throwIfNoEntry: false });
    return copied ? `copied zone file ${copied.ino} ${copied.size} ${copied.mtimeMs}` : null;
  }
  const at = target.lastIndexOf('zoneinfo/');
  // A link elsewhere still tells a change apart: V8 reads the zone again when it moves.
  return at < 0 ? target : target.slice(at + 'zoneinfo/'.length).replace(/^(posix|right)\//, '');
}

function localZoneName(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

function isZoneName(text: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: text });
    return true;
  } catch {
    return false;
  }
}

/** With TZ unset, deleting it makes Node tell V8 to detect the host's zone again (checked on Node 24). */
function redetectZone(): void {
  delete process.env.TZ;
}
