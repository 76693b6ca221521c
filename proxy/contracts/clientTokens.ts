/** The control API's client tokens (GET/POST /tokens…) and the burst guard's resume. */

/** Recognisable in a config file or a leak scanner, and never confused with a gateway key. */
export const CLIENT_TOKEN_PREFIX = 'alk_';
/** A different prefix from client tokens: the two kinds are never interchangeable. */
export const CONTROL_TOKEN_PREFIX = 'alkc_';

export interface TokenView {
  name: string;
  /** null = follows the active profile. */
  pinnedProfileId: string | null;
  createdAtMs: number | null;
  paused: boolean;
  /** The keychain holds it, so the window can show it again; false = it was shown once, at creation. */
  revealable: boolean;
}

/** GET /tokens */
export interface TokenListResponse {
  tokens: TokenView[];
  /** false when the user turned the token requirement off (the UI warns). */
  required: boolean;
}

/** POST /tokens */
export interface TokenCreateRequest {
  name: string;
  pinnedProfileId?: string | null;
}
/** The token is in this response and in GET /tokens/:name/reveal, nowhere else. */
export interface TokenSecretResponse {
  name: string;
  token: string;
  pinnedProfileId: string | null;
}

/** POST /clients/:name/resume — lifts a burst-guard pause. */
export interface ClientResumeResponse {
  resumed: boolean;
}
