import { z } from 'zod';
import { lineBreakingCharacter, modelIdCharacterRefusal } from './displayText.ts';

/**
 * One-click setup of a coding tool (Connect): which tools Airlock can write the config of, what a
 * setup would change, and the import of a gateway key found in a tool's file. Shared by the
 * control API, the CLI, the tray and the window. No secret ever travels in these shapes: a diff
 * shows a key or token as its last four characters only.
 */

export const CONNECT_TOOL_IDS = ['claude-code', 'codex', 'opencode', 'aider', 'continue', 'cline'] as const;
export const connectToolIdSchema = z.enum(CONNECT_TOOL_IDS);
export type ConnectToolId = z.infer<typeof connectToolIdSchema>;

/** A gateway the tool's config already points at, with a key in the plain file (cc-switch and hand setups). */
export interface ImportCandidate {
  baseUrl: string;
  /** The key's last four characters, for the user to recognise it. */
  keyLastFour: string;
  /** Where in the files the key sits, for people (`env.ANTHROPIC_AUTH_TOKEN in ~/.claude/settings.json`). */
  location: string;
}

export interface ConnectBackupInfo {
  /** The backup's folder name: the UTC time it was taken (`20261126T004422Z`), unique per tool. */
  id: string;
  createdAtMs: number;
}

export interface ConnectToolStatus {
  id: ConnectToolId;
  title: string;
  /** The tool's files Airlock reads and writes, in full (home expanded), its main config first; Continue's config.json is only read. */
  files: string[];
  /** The tool's main config file exists: the tool is set up on this machine. */
  detected: boolean;
  /** Its config already sends it to this Airlock with a client token. */
  connected: boolean;
  /** The name of the client token written for it, when connected with one Airlock knows. */
  tokenName: string | null;
  importCandidate: ImportCandidate | null;
  /**
   * The model the tool's config makes it ask for now; null when it sets none, so the tool would ask
   * for its built-in default, which the gateway may not serve: connecting it then needs a model.
   */
  model: string | null;
  /**
   * Newest first; `undo` restores the first. Each holds the values Airlock replaced as they were,
   * a key the tool's config held among them, until undo uses it or the user deletes them.
   */
  backups: ConnectBackupInfo[];
  /** Why the file cannot be edited (it does not parse), with the fix; null when it can. */
  problem: string | null;
}

export interface ConnectListResponse {
  proxyUrl: string;
  tools: ConnectToolStatus[];
}

export const connectRequestSchema = z.object({
  /** The model the tool should ask for; left as the tool has it when absent. */
  model: z
    .string()
    .trim()
    .min(1, 'the model id is empty: give the id the gateway lists')
    .max(200, 'a model id is at most 200 characters')
    // A line break written into YAML broke aider's file (refused as the user's own "not valid YAML"), and elsewhere
    // became a model no gateway has. Ids are one line; a control character or U+2028 is a paste gone wrong.
    .superRefine((model, context) => {
      const found = lineBreakingCharacter(model);
      if (found !== null) context.addIssue({ code: 'custom', message: modelIdCharacterRefusal(found) });
    })
    .optional(),
  /** Move the gateway key found in the tool's config into the keychain as a new profile first. */
  importKey: z.boolean().optional(),
});
export type ConnectRequest = z.infer<typeof connectRequestSchema>;

export interface ConnectFileChange {
  path: string;
  /** The file does not exist yet and would be created. */
  created: boolean;
  /** Unified diff of the file, secrets shown by their last four characters only; '' when unchanged. */
  diff: string;
}

export interface ConnectPlanResponse {
  tool: ConnectToolId;
  changes: ConnectFileChange[];
  /** The client token the setup writes: an existing one for this tool, or one that applying creates. */
  tokenName: string;
  tokenCreated: boolean;
  /** Set when the request asked to import: the profile the key would go to. */
  importProfileId: string | null;
  /** What the setup writes besides the tool's URL, token and model, and why: the proxy bypass (toolsProxyBypass.ts). */
  notes: string[];
}

export interface ConnectApplyResponse extends ConnectPlanResponse {
  /** null when the files were already set up: nothing was written, so there is nothing to undo. */
  backupId: string | null;
}

export interface ConnectForgetBackupsResponse {
  tool: ConnectToolId;
  /** How many backups were deleted; 0 when there were none. */
  removedBackups: number;
}

export interface ConnectUndoResponse {
  tool: ConnectToolId;
  backupId: string;
  restoredFiles: string[];
  removedFiles: string[];
}
