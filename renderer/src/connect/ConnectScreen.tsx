import { useMemo, useState } from 'react';
import type { TokenSecretResponse } from '../../../proxy/contracts/api.ts';
import { useApi } from '../api/ApiContext.tsx';
import { CopyButton } from '../common/CopyButton.tsx';
import { ErrorState, Loading } from '../common/StateViews.tsx';
import { useAsync } from '../common/useAsync.ts';
import { TraceExportSetting } from '../export/TraceExportSetting.tsx';
import { BurstLimitsForm } from './BurstLimitsForm.tsx';
import { ConnectTools } from './ConnectTools.tsx';
import { buildSnippets, uniqueTokenName, type ConnectSnippet } from './snippets.ts';
import { TokenPicker } from './TokenPicker.tsx';
import { TokensTable } from './TokensTable.tsx';

function SnippetCard({ snippet, onCreateToken, busy }: { snippet: ConnectSnippet; onCreateToken: () => void; busy: boolean }) {
  return (
    <section className="card snippet" aria-labelledby={`snippet-${snippet.id}-title`} data-testid={`snippet-${snippet.id}`}>
      <header className="snippet-header">
        <h3 id={`snippet-${snippet.id}-title`}>{snippet.title}</h3>
        <span className="muted">
          base URL <code>{snippet.baseUrl}</code>
        </span>
        <button type="button" disabled={busy} onClick={onCreateToken}>
          Create token for this client
        </button>
      </header>
      <p className="muted">{snippet.note}</p>
      {snippet.blocks.map((block) => (
        <div className="snippet-block" key={block.label}>
          <div className="snippet-label">
            {block.label} <CopyButton text={block.code} label={`Copy ${block.label} for ${snippet.title}`} compact />
          </div>
          <pre>
            <code>{block.code}</code>
          </pre>
        </div>
      ))}
    </section>
  );
}

export function ConnectScreen({ proxyUrl }: { proxyUrl: string }) {
  const api = useApi();
  const tokens = useAsync(() => api.tokens(), 'tokens');
  const models = useAsync(() => api.models(false), 'models');
  const [secret, setSecret] = useState<TokenSecretResponse | null>(null);
  const [model, setModel] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);

  const modelIds = models.kind === 'ready' ? models.value.models.map((row) => row.id) : [];
  const chosenModel = model.trim() || modelIds[0] || null;
  const snippets = useMemo(
    () => buildSnippets({ proxyUrl, token: secret?.token ?? null, model: chosenModel }),
    [proxyUrl, secret, chosenModel],
  );

  const act = async (action: () => Promise<TokenSecretResponse>) => {
    setBusy(true);
    setError(null);
    try {
      setSecret(await action());
      tokens.reload();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  };

  // A revoked token no longer opens the proxy: it must leave the setups at once.
  const forgetRevoked = (name: string) => setSecret((shown) => (shown?.name === name ? null : shown));

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
          onReveal={(name) => void act(() => api.revealToken(name))}
        />
        <label>
          Model
          <input
            list="connect-models"
            value={model}
            placeholder={modelIds[0] ?? 'a model id'}
            onChange={(event) => setModel(event.target.value)}
          />
          <datalist id="connect-models">
            {modelIds.map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
        </label>
      </div>
      {secret && (
        <p className="ok" role="status">
          Using token <strong>{secret.name}</strong> in the setups below. You can reveal it here again later.
        </p>
      )}
      {error && <ErrorState error={error} />}
      <ConnectTools model={chosenModel} onChanged={tokens.reload} />
      <div className="snippets">
        {snippets.map((snippet) => (
          <SnippetCard
            key={snippet.id}
            snippet={snippet}
            busy={busy}
            onCreateToken={() => void act(() => api.createToken({ name: uniqueTokenName(snippet.id, names) }))}
          />
        ))}
      </div>
      <TokensTable tokens={tokens.value.tokens} onChanged={tokens.reload} onRevoked={forgetRevoked} />
      <BurstLimitsForm />
      <TraceExportSetting />
    </div>
  );
}
