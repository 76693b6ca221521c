import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ConfigFile } from '../../contracts/config.ts';
import type {
  ConnectApplyResponse,
  ConnectForgetBackupsResponse,
  ConnectListResponse,
  ConnectPlanResponse,
  ConnectRequest,
  ConnectToolId,
  ConnectToolStatus,
  ConnectUndoResponse,
} from '../../contracts/connect.ts';
import { cleanApiKey } from '../../core/apiKey.ts';
import { findTokenRecord, generateToken, tokenRecord } from '../../http/clientTokens.ts';
import { writeFileAtomic } from '../profiles/atomicWrite.ts';
import { addClientToken, addProfile, bumpKeysRevision, holdsKey, KEY_AS_MODEL } from '../profiles/configMutations.ts';
import type { ConfigMutator } from '../profiles/configStore.ts';
import { clientTokenAccount, gatewayKeyAccount, KeychainUnavailableError, type SecretStore } from '../../contracts/secretStore.ts';
import {
  backupFolder,
  extendBackup,
  listBackups,
  readBackupCopy,
  readManifest,
  removeAllBackups,
  removeBackup,
  saveBackup,
  sha256,
} from './backups.ts';
import { chooseImportProfile, type ImportProfile } from './importProfile.ts';
import { fileChange, masker, type SecretLabel } from './preview.ts';
import { ConnectError, ConnectFileError, type FoundGateway, movedKeyPlaceholder, type ToolAdapter, type ToolFiles } from './toolAdapter.ts';
import { adapterFor, TOOL_ADAPTERS } from './tools/index.ts';
import { proxyBypassNote, shellProxyBypassNote } from './toolsProxyBypass.ts';
import { undoneText } from './undoFile.ts';

export interface ConnectDeps {
  homeDir: string;
  env: NodeJS.ProcessEnv;
  /** Airlock's data directory: backups live under it. */
  dataDir: string;
  config: { snapshot(): ConfigFile; update(mutator: ConfigMutator): Promise<ConfigFile> };
  secrets: SecretStore;
  /** The proxy's root URL the tools should use (`http://127.0.0.1:8642`). */
  proxyUrl: () => string;
  nowMs: () => number;
  /** Gateway keys Airlock holds: masked in any preview, wherever they sit in a file. */
  knownSecrets?: () => string[];
}

interface ChosenToken {
  name: string;
  secret: string;
  created: boolean;
}

interface Prepared {
  adapter: ToolAdapter;
  paths: Record<string, string>;
  before: ToolFiles;
  after: ToolFiles;
  token: ChosenToken;
  found: FoundGateway | null;
  importProfile: ImportProfile | null;
  labels: SecretLabel[];
  notes: string[];
}

/**
 * Connect: writes a tool's own config so it talks to Airlock with a client token made for it,
 * with a backup first and an undo after; and moves a gateway key found in such a file into the
 * keychain. The control API, the CLI and the tray all call this; the per-tool edits are the pure
 * adapters in tools/.
 */
export class ConnectService {
  readonly #deps: ConnectDeps;

  constructor(deps: ConnectDeps) {
    this.#deps = deps;
  }

  async list(): Promise<ConnectListResponse> {
    const tools: ConnectToolStatus[] = [];
    for (const adapter of TOOL_ADAPTERS) tools.push(this.#status(adapter));
    return { proxyUrl: this.#deps.proxyUrl(), tools };
  }

  async plan(tool: ConnectToolId, request: ConnectRequest = {}): Promise<ConnectPlanResponse> {
    return this.#response(await this.#prepare(tool, request));
  }

  async apply(tool: ConnectToolId, request: ConnectRequest = {}): Promise<ConnectApplyResponse> {
    const prepared = await this.#prepare(tool, request);
    const { adapter, importProfile, found, token } = prepared;
    if (importProfile && found) await this.#importKey(importProfile, found.key);
    if (token.created) await this.#createToken(token, importProfile?.id ?? null);
    const changed = Object.keys(prepared.paths).filter(
      (role) => prepared.after[role] !== undefined && prepared.after[role] !== prepared.before[role],
    );
    if (changed.length === 0) return { ...this.#response(prepared), backupId: null };
    const files = changed.map((role) => ({
      path: prepared.paths[role]!,
      // A key moved to the keychain leaves the plain files, the backup included.
      before: redact(prepared.before[role] ?? null, importProfile ? found : null, importProfile?.id ?? ''),
      mode: prepared.before[role] === null ? null : statSync(prepared.paths[role]!).mode & 0o7777,
      written: prepared.after[role]!,
    }));
    const { dataDir } = this.#deps;
    const latest = listBackups(dataDir, adapter.id)[0];
    const backupId =
      latest && this.#stillAsWritten(latest.id, prepared)
        ? extendBackup(dataDir, adapter.id, latest.id, files)
        : saveBackup(dataDir, adapter.id, this.#deps.nowMs(), files);
    for (const role of changed) {
      const filePath = prepared.paths[role]!;
      mkdirSync(path.dirname(filePath), { recursive: true });
      writeFileAtomic(filePath, prepared.after[role]!);
    }
    return { ...this.#response(prepared), backupId };
  }

  async undo(tool: ConnectToolId): Promise<ConnectUndoResponse> {
    const { dataDir } = this.#deps;
    const latest = listBackups(dataDir, tool)[0];
    if (!latest)
      throw new ConnectError('not_found', `Airlock has not written ${adapterFor(tool).title}'s config, so there is nothing to undo.`);
    const manifest = readManifest(dataDir, tool, latest.id)!;
    const adapter = adapterFor(tool);
    const folder = backupFolder(dataDir, tool, latest.id);
    const roleOf = new Map(Object.entries(this.#paths(adapter)).map(([role, filePath]) => [filePath, role]));
    // Every file's new text is settled before any is written: a refusal leaves all of them as they are.
    const undoneFiles = manifest.files.map((file) => {
      const current = readText(file.path, adapter.title);
      const before = file.copy === null ? null : readBackupCopy(dataDir, tool, latest.id, file.copy);
      if (current !== null && sha256(current) === file.writtenSha256) return { file, text: before };
      if (current === null || !file.writtenCopy) {
        throw new ConnectError(
          'conflict',
          `${file.path} ${current === null ? 'was deleted' : 'changed'} after Airlock wrote it: restore it by hand from ${folder}.`,
        );
      }
      const written = readBackupCopy(dataDir, tool, latest.id, file.writtenCopy);
      const proxyUrl = this.#deps.proxyUrl();
      return {
        file,
        text: undoneText({
          adapter,
          role: roleOf.get(file.path),
          filePath: file.path,
          before,
          written,
          current,
          proxyUrl,
          backupFolder: folder,
        }),
      };
    });
    const restoredFiles: string[] = [];
    const removedFiles: string[] = [];
    for (const { file, text } of undoneFiles) {
      if (text === null) {
        rmSync(file.path, { force: true });
        removedFiles.push(file.path);
      } else {
        writeFileAtomic(file.path, text);
        // The write made it 0600 (it held a token); the user's file gets its own mode back.
        if (file.mode !== undefined) chmodSync(file.path, file.mode);
        restoredFiles.push(file.path);
      }
    }
    removeBackup(dataDir, tool, latest.id);
    return { tool, backupId: latest.id, restoredFiles, removedFiles };
  }

  /**
   * Deletes a tool's backups, for a user done with undo: they hold the values Airlock replaced in
   * plain text, the key the tool's config held before among them. The tool's files stay as they are.
   */
  async forgetBackups(tool: ConnectToolId): Promise<ConnectForgetBackupsResponse> {
    return { tool, removedBackups: removeAllBackups(this.#deps.dataDir, tool) };
  }

  /** Whether every file of a backup is still exactly what Airlock wrote: nobody changed it since. */
  #stillAsWritten(backupId: string, prepared: Prepared): boolean {
    const roleOf = new Map(Object.entries(prepared.paths).map(([role, filePath]) => [filePath, role]));
    const manifest = readManifest(this.#deps.dataDir, prepared.adapter.id, backupId);
    return (
      manifest?.files.every((file) => {
        const text = prepared.before[roleOf.get(file.path) ?? ''];
        return typeof text === 'string' && sha256(text) === file.writtenSha256;
      }) ?? false
    );
  }

  #paths(adapter: ToolAdapter): Record<string, string> {
    return adapter.paths({ homeDir: this.#deps.homeDir, env: this.#deps.env, exists: existsSync });
  }

  #read(adapter: ToolAdapter): { paths: Record<string, string>; files: ToolFiles } {
    const paths = this.#paths(adapter);
    const files: ToolFiles = {};
    for (const [role, filePath] of Object.entries(paths)) files[role] = readText(filePath, adapter.title);
    return { paths, files };
  }

  #status(adapter: ToolAdapter): ConnectToolStatus {
    const paths = this.#paths(adapter);
    const proxyUrl = this.#deps.proxyUrl();
    const base = {
      id: adapter.id,
      title: adapter.title,
      files: Object.values(paths),
      detected: existsSync(Object.values(paths)[0]!),
      backups: listBackups(this.#deps.dataDir, adapter.id),
    };
    try {
      const { files } = this.#read(adapter);
      const current = adapter.airlockToken(files, proxyUrl);
      const record = current ? findTokenRecord(current, this.#deps.config.snapshot().clientTokens) : null;
      const found = adapter.gateway(files, proxyUrl);
      return {
        ...base,
        connected: record !== null,
        tokenName: record?.name ?? null,
        model: adapter.model(files, proxyUrl),
        importCandidate: found ? { baseUrl: found.baseUrl, keyLastFour: found.key.slice(-4), location: found.location } : null,
        problem: null,
      };
    } catch (error) {
      if (!(error instanceof ConnectFileError)) throw error;
      return { ...base, connected: false, tokenName: null, model: null, importCandidate: null, problem: error.message };
    }
  }

  async #prepare(tool: ConnectToolId, request: ConnectRequest): Promise<Prepared> {
    // As a profile's model ids are checked: a key given as the model was written into the tool's own file in clear.
    if (request.model !== undefined && holdsKey(request.model)) throw new ConnectError('invalid', `model: ${KEY_AS_MODEL}`);
    const adapter = adapterFor(tool);
    const { paths, files } = this.#read(adapter);
    const proxyUrl = this.#deps.proxyUrl();
    const found = adapter.gateway(files, proxyUrl);
    let importProfile: ImportProfile | null = null;
    if (request.importKey) {
      if (!found) {
        throw new ConnectError(
          'not_found',
          `${adapter.title}'s config points at no gateway with a key in the file, so there is no key to import.`,
        );
      }
      const cleaned = cleanApiKey(found.key);
      if (!cleaned.ok) throw new ConnectError('invalid', `The key at ${found.location} cannot be used: ${cleaned.reason}`);
      importProfile = await chooseImportProfile(
        this.#deps.config.snapshot(),
        this.#deps.secrets,
        found.baseUrl,
        cleaned.key,
        adapter.title,
      );
    }
    const token = await this.#chooseToken(adapter, files, proxyUrl);
    const after = adapter.connect(files, {
      proxyUrl,
      token: token.secret,
      model: request.model,
      dropGatewayKey: importProfile !== null,
      nowMs: this.#deps.nowMs(),
      env: this.#deps.env,
    });
    const bypassBefore = new Set(adapter.proxyBypass?.(files));
    const bypassWritten = adapter.proxyBypass?.({ ...files, ...after }).filter((setting) => !bypassBefore.has(setting)) ?? [];
    const shellOnly = adapter.proxyBypassInShellOnly;
    const notes = [
      ...(bypassWritten.length > 0 ? [proxyBypassNote(adapter.title, bypassWritten, this.#deps.env)] : []),
      ...(shellOnly ? [shellProxyBypassNote(adapter.title, shellOnly.afterwards, this.#deps.env)].filter((note) => note !== null) : []),
    ];
    // A tool left without a model asks the gateway for its built-in default (Codex's OpenAI model, Claude
    // Code's claude-*), which the gateway may not serve: its first request would fail with model not found.
    // The user names the model; Airlock never picks one, since the model sets what the tool spends.
    if (adapter.model(after, proxyUrl) === null) {
      throw new ConnectError(
        'invalid',
        `${adapter.title} has no model of its own set in ${Object.values(paths)[0]}, so it would ask the gateway for its built-in default, which the gateway may not have: choose the model ${adapter.title} should ask Airlock for (Model on the Connect screen, --model in the CLI), then connect again.`,
      );
    }
    const labels: SecretLabel[] = [
      {
        secret: token.secret,
        label: token.created ? `<new client token "${token.name}">` : `<client token "${token.name}" …${token.secret.slice(-4)}>`,
      },
      ...(found ? [{ secret: found.key, label: `<gateway key …${found.key.slice(-4)}>` }] : []),
      ...[...(this.#deps.knownSecrets?.() ?? []), ...adapter.secretValues(files), ...adapter.secretValues(after)].map((secret) => ({
        secret,
        label: `<secret …${secret.slice(-4)}>`,
      })),
    ];
    return { adapter, paths, before: files, after, token, found, importProfile, labels, notes };
  }

  #response(prepared: Prepared): ConnectPlanResponse {
    const mask = masker(prepared.labels);
    return {
      tool: prepared.adapter.id,
      changes: Object.entries(prepared.paths)
        .filter(([role]) => prepared.after[role] !== undefined)
        .map(([role, filePath]) => fileChange(filePath, prepared.before[role] ?? null, prepared.after[role]!, mask)),
      tokenName: prepared.token.name,
      tokenCreated: prepared.token.created,
      importProfileId: prepared.importProfile?.id ?? null,
      notes: prepared.notes,
    };
  }

  /**
   * The token the tool already sends, if Airlock knows it; else one made for this tool whose secret
   * the keychain still holds; else a new one (created only when the setup is applied).
   */
  async #chooseToken(adapter: ToolAdapter, files: ToolFiles, proxyUrl: string): Promise<ChosenToken> {
    const records = this.#deps.config.snapshot().clientTokens;
    const current = adapter.airlockToken(files, proxyUrl);
    const record = current ? findTokenRecord(current, records) : null;
    if (current && record) return { name: record.name, secret: current, created: false };
    const ownNames = records.map((candidate) => candidate.name).filter((name) => name === adapter.id || name.startsWith(`${adapter.id}-`));
    for (const name of ownNames) {
      const secret = await this.#keychainSecret(clientTokenAccount(name));
      if (secret) return { name, secret, created: false };
    }
    const taken = new Set(records.map((candidate) => candidate.name));
    let name: string = adapter.id;
    for (let suffix = 2; taken.has(name); suffix += 1) name = `${adapter.id}-${suffix}`;
    return { name, secret: generateToken(), created: true };
  }

  async #keychainSecret(account: string): Promise<string | null> {
    try {
      return await this.#deps.secrets.get(account);
    } catch (error) {
      if (error instanceof KeychainUnavailableError) return null;
      throw error;
    }
  }

  async #createToken(token: ChosenToken, pinnedProfileId: string | null): Promise<void> {
    const record = tokenRecord(token.name, token.secret, pinnedProfileId, this.#deps.nowMs());
    await this.#deps.config.update((config) => addClientToken(config, record));
    try {
      await this.#deps.secrets.set(clientTokenAccount(token.name), token.secret);
    } catch (error) {
      // The tool's file then holds the only copy; the token works all the same.
      if (!(error instanceof KeychainUnavailableError)) throw error;
    }
  }

  async #importKey(profile: ImportProfile, key: string): Promise<void> {
    if (!profile.isNew) return;
    // The key goes to the keychain first: without a keychain nothing else changes.
    await this.#deps.secrets.set(gatewayKeyAccount(profile.id), key);
    await this.#deps.config.update((config) =>
      bumpKeysRevision(addProfile(config, { id: profile.id, name: profile.name, baseUrl: profile.baseUrl })),
    );
  }
}

/** A tool's file as text, null when it does not exist; one that cannot be read is refused with its path. */
function readText(filePath: string, toolTitle: string): string | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(filePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'EISDIR') {
      throw new ConnectFileError(`${filePath} is a folder, where ${toolTitle} reads a file: move it, then connect again`);
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw new ConnectFileError(`${filePath} cannot be read (permission denied): give your user read access, then connect again`);
    }
    throw error;
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    // Decoding leniently would write U+FFFD over the user's bytes, and the backup would keep that too.
    throw new ConnectFileError(`${filePath} is not UTF-8 text: save it as UTF-8, then connect again`);
  }
}

/** Strict, and keeps a byte order mark as text so the file is written back with it. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function redact(text: string | null, found: FoundGateway | null, profileId: string): string | null {
  if (text === null || found === null) return text;
  return text.split(found.key).join(movedKeyPlaceholder(profileId));
}
