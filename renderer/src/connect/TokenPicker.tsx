import type { TokenView } from '../../../proxy/contracts/clientTokens.ts';

interface TokenPickerProps {
  tokens: TokenView[];
  selected: string | null;
  busy: boolean;
  onReveal: (name: string) => void;
}

/** Chooses which existing client token the setups show (read from the keychain on demand); tokens it cannot show are listed, disabled. */
export function TokenPicker({ tokens, selected, busy, onReveal }: TokenPickerProps) {
  if (tokens.length === 0) return <p className="muted">No client tokens yet: create one for the client you are setting up below.</p>;
  return (
    <label>
      Client token
      {/* Marked busy, not disabled, as BusyButton is: a focused select that turns disabled sends focus to the window's top. */}
      <select
        value={selected ?? ''}
        aria-disabled={busy || undefined}
        onChange={(event) => !busy && event.target.value && onReveal(event.target.value)}
      >
        <option value="">Choose a token to show it in the setups</option>
        {tokens.map((token) => (
          <option key={token.name} value={token.name} disabled={!token.revealable}>
            {token.name}
            {token.pinnedProfileId ? ` (pinned to ${token.pinnedProfileId})` : ''}
            {token.paused ? ' (paused)' : ''}
            {token.revealable ? '' : ' (cannot be shown again)'}
          </option>
        ))}
      </select>
    </label>
  );
}
