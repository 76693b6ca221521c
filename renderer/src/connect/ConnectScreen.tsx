import { useMemo, useState } from 'react';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { useApi } from '../api/ApiContext.tsx';
import { CopyButton } from '../common/CopyButton.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { useAsync } from '../common/useAsync.ts';
import { useSwitchCount } from '../common/useWhenBack.ts';
import { useSaveAction } from '../common/useSaveAction.ts';
import { TraceExportSetting } from '../export/TraceExportSetting.tsx';
import { BurstLimitsForm } from './BurstLimitsForm.tsx';
import { MemoryLimitsForm } from './MemoryLimitsForm.tsx';
import { ConnectTools } from './ConnectTools.tsx';
import { buildSnippets, uniqueTokenName, type ConnectSnippet } from './snippets.ts';
import { TokenPicker } from './TokenPicker.tsx';
import { TokensTable } from './TokensTable.tsx';
import { BusyButton } from '../common/BusyButton.tsx';

function SnippetCard({
  snippet,
  onCreateToken,
  busy,
  tokenFilled,
}: {
  snippet: ConnectSnippet;
  onCreateToken: () => void;
  busy: boolean;
  tokenFilled: boolean;
}) {
  return (
    <section className="card snippet" aria-labelledby={`snippet-${snippet.id}-title`} data-testid={`snippet-${snippet.id}`}>
      <header className="snippet-header">
        <h3 id={`snippet-${snippet.id}-title`}>{snippet.title}</h3>
        <span className="muted snippet-base">
          base URL <code>{snippet.baseUrl}</code>
        </span>
        <BusyButton busy={busy} onPress={onCreateToken}>
          Create token for this client
        </BusyButton>
      </header>
      <p className="muted">{snippet.note}</p>
      {snippet.blocks.map((block) => (
        <div className="snippet-block" key={block.label}>
          <div className="snippet-label">
            {block.label}{' '}
            {tokenFilled ? (
              <CopyButton text={block.code} label={`Copy ${block.label} for ${snippet.title}`} compact />
            ) : (
              <span className="hint">choose or create a token to copy</span>
            )}
          </div>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a code block scrolls and is read and selected piece by piece; keyboard users must be able to focus it */}
          {/* biome-ignore lint/a11y/useSemanticElements: a named region around the <pre> itself, since the <pre> is what scrolls and takes the focus */}
          <pre tabIndex={0} role="region" aria-label={`${block.label} for ${snippet.title}`}>
            <code>{block.code}</code>
          </pre>
        </div>
      ))}
    </section>
  );
}

/** A token just created: shown here once with a copy button, and filled into every setup below. */
function NewTokenNotice({ secret, revealable }: { secret: TokenSecretResponse; revealable: boolean | null }) {
  return (
    <section className="card new-token" aria-labelledby="new-token-title">
      <h3 id="new-token-title" role="status">
        Token {secret.name} created
      </h3>
      <p>
        <code data-testid="new-token-value">{secret.token}</code>{' '}
        <CopyButton text={secret.token} label={`Copy token ${secret.name}`} compact />
      </p>
      <p className={revealable === false ? 'warn' : 'muted'}>
        {revealable === false
          ? 'The keychain could not keep it: this is the only time it is shown. Copy it now.'
          : 'It is filled in to every setup below. The keychain keeps it, so you can show it here again.'}
      </p>
    </section>
  );
}

/** `activeProfileId`: the status's; the example model is the active profile's, so a switch (the tray's too) reads its list. */
export function ConnectScreen({ proxyUrl, activeProfileId }: { proxyUrl: string; activeProfileId: string | null | undefined }) {
  const api = useApi();
  const tokens = useAsync(() => api.tokens(), 'tokens');
  const models = useAsync(() => api.models(false), `models:${useSwitchCount(activeProfileId)}`);
  const [secret, setSecret] = useState<TokenSecretResponse | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const [model, setModel] = useState('');
  const save = useSaveAction();
  const { busy, error } = save;

  const modelIds = models.kind === 'ready' ? models.value.models.map((row) => row.id) : [];
  const typedModel = model.trim() || null;
  // The snippets are read before they are copied, so they may show the gateway's first model as an
  // example; the one-click setups write only a model the user typed (the model sets what a tool spends).
  const exampleModel = typedModel ?? modelIds[0] ?? null;
  const snippets = useMemo(
    () => buildSnippets({ proxyUrl, token: secret?.token ?? null, model: exampleModel }),
    [proxyUrl, secret, exampleModel],
  );

  const act = (action: () => Promise<TokenSecretResponse>, isNew: boolean) =>
    save.run(async () => {
      const shown = await action();
      setSecret(shown);
      setCreated(isNew ? shown.name : null);
      tokens.reload();
      return null;
    });

  // A revoked token no longer opens the proxy: it must leave the setups at once.
  const forgetRevoked = (name: string) => {
    setSecret((shown) => (shown?.name === name ? null : shown));
    setCreated((shown) => (shown === name ? null : shown));
  };

  if (tokens.kind === 'loading') return <Loading what="client tokens" />;
  if (tokens.kind === 'error') return <ErrorState error={tokens.error} onRetry={tokens.reload} />;
  const names = tokens.value.tokens.map((token) => token.name);

  return (
    <div className="screen connect">
      <header className="screen-header">
        <h2>Connect a client</h2>
      </header>
      {!tokens.value.required && (
        <p className="warn" role="alert">
          Client tokens are turned off: any program on this machine can spend through Airlock.
        </p>
      )}
      <div className="connect-choices">
        <TokenPicker
          tokens={tokens.value.tokens}
          selected={secret?.name ?? null}
          busy={busy}
          onReveal={(name) => void act(() => api.revealToken(name), false)}
        />
        <label>
          Model
          <input
            list="connect-models"
            value={model}
            placeholder="blank: each tool keeps the model it has"
            onChange={(event) => setModel(event.target.value)}
          />
          <datalist id="connect-models">
            {modelIds.map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
        </label>
      </div>
      {secret && created === secret.name ? (
        <NewTokenNotice secret={secret} revealable={tokens.value.tokens.find((token) => token.name === secret.name)?.revealable ?? null} />
      ) : (
        secret && (
          <p className="ok" role="status">
            Using token <strong>{secret.name}</strong> in the setups below.
          </p>
        )
      )}
      {error !== null && <ErrorState error={{ message: error }} />}
      <ConnectTools model={typedModel} onChanged={tokens.reload} />
      <div className="snippets">
        {snippets.map((snippet) => (
          <SnippetCard
            key={snippet.id}
            snippet={snippet}
            busy={busy}
            tokenFilled={secret !== null}
            onCreateToken={() => void act(() => api.createToken({ name: uniqueTokenName(snippet.id, names) }), true)}
          />
        ))}
      </div>
      <TokensTable tokens={tokens.value.tokens} onChanged={tokens.reload} onRevoked={forgetRevoked} />
      <BurstLimitsForm />
      <TraceExportSetting />
      <MemoryLimitsForm />
    </div>
  );
}
