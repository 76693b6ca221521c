import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../profiles/atomicWrite.ts';

/** The window's browser sessions, hashed, so a restarted `airlock serve` keeps them signed in. */
export const SESSIONS_FILE_NAME = 'window-sessions.json';

const sessionFileSchema = z.object({
  version: z.literal(1),
  /** SHA-256 of the control token they were opened under: a new control token signs every browser out. */
  controlTokenSha256: z.string(),
  sessions: z.array(z.object({ sha256: z.string(), expiresAtMs: z.number() })),
});

/** Where ControlSessions keeps its session hashes between runs (hash → expiry, ms since the epoch). */
export interface SessionPersistence {
  load(): Map<string, number>;
  save(sessions: ReadonlyMap<string, number>): void;
}

/**
 * Sessions in a 0600 JSON file in the data directory, as hashes only: the file cannot be turned
 * back into a cookie. A missing, unreadable or foreign file loads as no sessions (the browser signs
 * in again); a failed write is reported and the sessions still work for this run.
 */
export function sessionFile(
  filePath: string,
  controlTokenSha256: string,
  onError: (message: string) => void = (message) => console.error(`[airlock] ${message}`),
): SessionPersistence {
  return {
    load() {
      let text: string;
      try {
        text = readFileSync(filePath, 'utf8');
      } catch {
        return new Map();
      }
      const parsed = sessionFileSchema.safeParse(safeJson(text));
      if (!parsed.success || parsed.data.controlTokenSha256 !== controlTokenSha256) return new Map();
      return new Map(parsed.data.sessions.map((session) => [session.sha256, session.expiresAtMs]));
    },
    save(sessions) {
      const content = {
        version: 1,
        controlTokenSha256,
        sessions: [...sessions].map(([sha256, expiresAtMs]) => ({ sha256, expiresAtMs })),
      };
      try {
        writeFileAtomic(filePath, `${JSON.stringify(content)}\n`);
      } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        onError(`could not keep the window's sign-in in ${filePath} (${reason}): browsers will have to sign in again after a restart.`);
      }
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
