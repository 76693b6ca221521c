import { useEffect, useRef, useState } from 'react';
import type { ConnectFileChange, ConnectToolStatus } from '../../../proxy/contracts/connect.ts';
import { CLI_COMMAND } from '../../../proxy/contracts/cli.ts';
import { useApi } from '../api/ApiContext.tsx';
import { BusyButton } from '../common/BusyButton.tsx';
import { ConfirmChoice } from '../common/ConfirmChoice.tsx';
import { ErrorState, FormError, Loading } from '../common/StateViews.tsx';
import { useAsync } from '../common/useAsync.ts';
import { useSaveAction } from '../common/useSaveAction.ts';

/** What the last action on a tool left to show: a preview to confirm, or what was done. */
type Outcome = { kind: 'preview'; changes: ConnectFileChange[]; note: string } | { kind: 'done'; message: string };

function stateText(tool: ConnectToolStatus): string {
  if (tool.problem) return 'cannot be edited';
  if (tool.connected) return `connected with client token "${tool.tokenName}"`;
  return tool.detected ? 'found, not connected' : 'not found (applying creates its config)';
}

function Changes({ changes }: { changes: ConnectFileChange[] }) {
  return (
    <>
      {changes.map((change) => (
        <div className="snippet-block" key={change.path}>
          <div className="snippet-label">
            {change.path} {change.created ? '(new file)' : ''}
          </div>
          {change.diff === '' ? (
            <p className="muted">Already set up: no change.</p>
          ) : (
            <pre>
              <code>{change.diff}</code>
            </pre>
          )}
        </div>
      ))}
    </>
  );
}

function ToolCard({ tool, model, onChanged }: { tool: ConnectToolStatus; model: string | null; onChanged: () => void }) {
  const api = useApi();
  const [importKey, setImportKey] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  // Kept, the backups' Delete… button is back: focus returns to it once it is rendered.
  const [refocusDeleteButton, setRefocusDeleteButton] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!refocusDeleteButton) return;
    deleteButton.current?.focus();
    setRefocusDeleteButton(false);
  }, [refocusDeleteButton]);
  const save = useSaveAction();
  const { busy, error } = save;
  // Without a model, a tool whose config names none asks the gateway for its built-in default, which the
  // gateway may not serve (404 on its first request): the user picks one rather than Airlock guessing.
  // Said before Apply; the proxy refuses such an apply too, reading the files as they are by then.
  const needsModel = model === null && tool.model === null && tool.problem === null;
  const request = { ...(model ? { model } : {}), ...(importKey && tool.importCandidate ? { importKey: true } : {}) };

  // The outcome stays until the next one replaces it: a failed apply still shows the preview before it.
  const run = (action: () => Promise<Outcome>, changesFiles: boolean) =>
    save.run(async () => {
      setOutcome(await action());
      if (changesFiles) onChanged();
      return null;
    });

  const preview = () =>
    run(async () => {
      const plan = await api.planConnect(tool.id, request);
      const token = plan.tokenCreated ? `a new client token "${plan.tokenName}"` : `client token "${plan.tokenName}"`;
      const imported = plan.importProfileId ? ` The gateway key moves to the keychain as profile "${plan.importProfileId}".` : '';
      return { kind: 'preview', changes: plan.changes, note: [`Applying writes ${token}.${imported}`, ...plan.notes].join(' ') };
    }, false);
  const apply = () =>
    run(async () => {
      const applied = await api.applyConnect(tool.id, request);
      const imported = applied.importProfileId ? ` The gateway key is now in the keychain (profile "${applied.importProfileId}").` : '';
      return {
        kind: 'done',
        message: [
          `${tool.title} now uses Airlock with client token "${applied.tokenName}".`,
          `${applied.backupId ? `Backup ${applied.backupId}.` : 'It was already set up: nothing was written.'}${imported}`,
          ...applied.notes,
        ].join(' '),
      };
    }, true);
  const undo = () =>
    run(async () => {
      const undone = await api.undoConnect(tool.id);
      return {
        kind: 'done',
        message: `Put back ${[...undone.restoredFiles, ...undone.removedFiles].length} file(s) as they were before backup ${undone.backupId}.`,
      };
    }, true);

  const forgetBackups = () =>
    run(async () => {
      const { removedBackups } = await api.forgetConnectBackups(tool.id);
      return {
        kind: 'done',
        message: `Deleted ${removedBackups} backup(s) of ${tool.title}. Its config file stays as it is; undo is no longer possible.`,
      };
    }, true);

  return (
    <section className="card snippet" aria-labelledby={`connect-${tool.id}-title`} data-testid={`connect-${tool.id}`}>
      <header className="snippet-header">
        <h3 id={`connect-${tool.id}-title`} ref={title} tabIndex={-1}>
          {tool.title}
        </h3>
        <span className="muted">{stateText(tool)}</span>
      </header>
      <p className="muted">
        <code>{tool.files[0]}</code>
      </p>
      {tool.problem && (
        <p className="warn" role="alert">
          {tool.problem}
        </p>
      )}
      {tool.importCandidate && (
        <label>
          <input type="checkbox" checked={importKey} onChange={(event) => setImportKey(event.target.checked)} />
          Move the key ending in {tool.importCandidate.keyLastFour} for {tool.importCandidate.baseUrl} into the keychain as a profile
        </label>
      )}
      {needsModel && (
        <p className="warn" role="alert">
          {tool.title} has no model of its own set, so it would ask the gateway for its built-in default, which the gateway may not have.
          Type the model {tool.title} should ask for in Model above, then apply.
        </p>
      )}
      <div className="connect-tool-actions">
        <BusyButton disabled={tool.problem !== null} busy={busy} onPress={() => void preview()}>
          Preview changes for {tool.title}
        </BusyButton>
        <BusyButton disabled={tool.problem !== null} busy={busy} onPress={() => void apply()}>
          Apply to {tool.title}
        </BusyButton>
        {tool.backups.length > 0 && (
          <>
            <BusyButton busy={busy} onPress={() => void undo()}>
              Undo for {tool.title}
            </BusyButton>
            {confirmingDelete ? (
              <ConfirmChoice
                question={`Delete the backups of ${tool.title}?`}
                warning="Undo is no longer possible after this."
                confirmLabel={`Delete ${tool.backups.length} backup(s) of ${tool.title}`}
                cancelLabel="Keep them"
                disabled={busy}
                onConfirm={() => {
                  setConfirmingDelete(false);
                  // The backups and this button are going: focus waits on the tool's title.
                  title.current?.focus();
                  void forgetBackups();
                }}
                onCancel={() => {
                  setConfirmingDelete(false);
                  setRefocusDeleteButton(true);
                }}
              />
            ) : (
              <BusyButton ref={deleteButton} busy={busy} onPress={() => setConfirmingDelete(true)}>
                Delete backups of {tool.title}…
              </BusyButton>
            )}
          </>
        )}
      </div>
      {tool.backups.length > 0 && (
        <p className="muted">
          {tool.backups.length} backup(s) in Airlock's data folder keep the values Airlock replaced, a key the file held among them. Delete
          them once you no longer need undo.
        </p>
      )}
      <FormError message={error} />
      {outcome?.kind === 'preview' && (
        <>
          <p role="status">{outcome.note}</p>
          <Changes changes={outcome.changes} />
        </>
      )}
      {outcome?.kind === 'done' && (
        <p className="ok" role="status">
          {outcome.message}
        </p>
      )}
    </section>
  );
}

/** One-click setup: each tool's own config file written to use Airlock, with a preview, a backup and an undo. */
export function ConnectTools({ model, onChanged }: { model: string | null; onChanged: () => void }) {
  const api = useApi();
  const tools = useAsync(() => api.connectTools(), 'connect-tools');
  if (tools.kind === 'loading') return <Loading what="your tools" />;
  if (tools.kind === 'error') return <ErrorState error={tools.error} onRetry={tools.reload} />;
  const changed = () => {
    tools.reload();
    onChanged();
  };
  return (
    <section className="connect-tools" aria-labelledby="connect-tools-title">
      <h3 id="connect-tools-title">Set up a tool in one click</h3>
      <p className="muted">
        Airlock writes the tool's own config file with a client token made for it, keeps a backup, and can put the file back. Cline's VS
        Code extension and Roo Code keep their settings inside VS Code, where Airlock cannot write them safely: set them up by hand below
        (Cline's CLI is the Cline CLI card here, or <code>{CLI_COMMAND} connect cline</code>).
      </p>
      <div className="snippets">
        {tools.value.tools.map((tool) => (
          <ToolCard key={tool.id} tool={tool} model={model} onChanged={changed} />
        ))}
      </div>
    </section>
  );
}
