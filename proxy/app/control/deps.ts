import type { Alarm } from '../../contracts/status.ts';
import type { CapabilityBadge } from '../../contracts/models.ts';
import type { RequestEvents } from '../../contracts/requestEvents.ts';
import type { RequestLog } from '../../store/requestLog.ts';
import type { SpendGateControl } from '../../spend/spendGate.ts';
import type { TargetResolver } from '../../contracts/ports.ts';
import type { ConfigFile } from '../../contracts/config.ts';
import type { ConfigMutator } from '../profiles/configStore.ts';
import type { ConnectService } from '../connect/connectService.ts';
import type { KeyCache } from '../secrets/keyCache.ts';
import type { TraceHeaderCache } from '../secrets/traceHeaderCache.ts';
import type { KeyPools } from '../../spend/keyPool.ts';
import type { CommandHint } from '../../contracts/cli.ts';
import type { SecretStore } from '../../contracts/secretStore.ts';
import type { ReplayGrants } from '../../http/replayGrants.ts';
import type { ControlTokens } from '../../http/controlToken.ts';
import type { NoticeBoard } from '../noticeBoard.ts';

/** The parts of the running proxy (ProxyHandle) the control API reads and drives. */
export interface ProxyControl {
  url: string;
  events: RequestEvents;
  isPaused(): boolean;
  setPaused(paused: boolean): void;
  inFlightCount(): number;
}

/** The per-model capability check; without it badges show "not checked". */
export interface CapabilityService {
  badges(profileId: string, model: string): CapabilityBadge[];
  check(profileId: string, model: string): Promise<CapabilityBadge[]>;
}

/**
 * The profile file as this run sees it (`snapshot`, which may overlay --profile), its writer
 * (`update`, the ConfigStore's locked read-modify-write), and why the file on disk is not in use.
 */
export interface ControlConfig {
  snapshot(): ConfigFile;
  update(mutator: ConfigMutator): Promise<ConfigFile>;
  /** The file does not validate (a hand edit): the message names line and field; null when fine. */
  problem(): string | null;
  onProblemChange(listener: () => void): () => void;
  /** Told after each change of the settings: the window's, the tray's (a profile switch), the CLI's or a hand edit's. */
  onChange(listener: () => void): () => void;
}

/**
 * The log as the control routes see it: the window's reads go through `reads`, on the reader thread
 * (a month's spend took 1.9 s of the forwarding thread on a 100 000-row log). Only the status bar's
 * today total (`spendSince` of today) stays synchronous: the status is built on every push.
 */
export type ControlLog = Pick<RequestLog, 'reads' | 'spendSince' | 'status' | 'flush' | 'onRowSummaries'>;

/** Everything the control routes call: the same modules the CLI and the proxy use, nothing of its own. */
export interface ControlDeps {
  /** The control token (never a client token), or the tokens this run takes (ControlTokens). */
  controlToken: string | ControlTokens;
  config: ControlConfig;
  keys: KeyCache;
  /** How each pooled key stands (cooling, rejected); absent, every pooled key shows as ready. */
  keyPools?: KeyPools;
  /** Client tokens are kept here too, so the window can show one again. */
  secrets: SecretStore;
  /** The trace export's header values, held for the exporter; the routes show names and last four only. */
  traceHeaders: TraceHeaderCache;
  /** The gateway keys and the control token: masked in what the window is sent. */
  knownSecrets?: () => string[];
  /** Resolves a profile to its key for Test and the model list, the same way requests do. */
  targets: TargetResolver;
  log: ControlLog;
  spendGate?: SpendGateControl;
  capabilities?: CapabilityService;
  /** The proxy's one-time replay credentials (its authenticator honours them); without it replays answer 503. */
  replayGrants?: ReplayGrants;
  /** Writes the tools' config files (Connect); without it those routes answer 503. */
  connect?: ConnectService;
  /** What this start found and the user must see for the whole run (a damaged log set aside). */
  startupAlarms?: readonly Alarm[];
  /** What this run found at start and since (a data file set aside, a failed save): the window's notices. */
  notices?: NoticeBoard;
  /** Where a failure the API did not expect is said (startAirlock: the notices, and stderr); stderr unless given. */
  reportUnexpectedError?: (message: string) => void;
  /** How the errors name this Airlock in the commands they suggest (required: a plain default would name another Airlock). */
  commandHint: CommandHint;
  /** Where the window's sessions are kept (hashed) across restarts; in memory only without it. */
  sessionsFile?: string;
  /** The built window (renderer/dist); defaults to the repository's. */
  uiDir?: string;
  nowMs?: () => number;
}
