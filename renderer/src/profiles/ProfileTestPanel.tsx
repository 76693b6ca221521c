import { useState } from 'react';
import type { ProfileTestResult } from '../../../proxy/contracts/profileViews.ts';
import { useApi } from '../api/ApiContext.tsx';
import { formatDuration } from '../common/format.ts';
import { ErrorState } from '../common/StateViews.tsx';

const STEP_TITLES = { models: 'GET /models', chat: 'One-token chat' } as const;

/** "Test": GET /models, then a one-token chat to the chosen model, each explained. */
export function ProfileTestPanel({ profileId }: { profileId: string }) {
  const api = useApi();
  const [model, setModel] = useState('');
  const [result, setResult] = useState<ProfileTestResult | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [running, setRunning] = useState(false);

  const test = async () => {
    setRunning(true);
    setError(null);
    try {
      setResult(await api.testProfile(profileId, model.trim() === '' ? {} : { model: model.trim() }));
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setRunning(false);
    }
  };

  return (
    <fieldset className="profile-test">
      <legend>Test</legend>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!running) void test();
        }}
      >
        <label>
          Model for the chat (optional)
          <input
            list={`models-${profileId}`}
            value={model}
            placeholder="a model id from the list"
            onChange={(event) => setModel(event.target.value)}
          />
        </label>
        <datalist id={`models-${profileId}`}>
          {result?.models.map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>
        {/* Busy, not disabled: Chromium drops focus from a focused button that turns disabled. */}
        <button type="submit" aria-disabled={running || undefined} aria-busy={running || undefined}>
          {running ? 'Testing…' : 'Test'}
        </button>
      </form>
      {error && <ErrorState error={error} />}
      {result && (
        <ol className="test-steps" aria-live="polite" data-testid="test-result">
          {result.steps.map((step) => (
            <li key={step.name} className={step.ok ? 'ok' : 'bad'}>
              <strong>
                {STEP_TITLES[step.name]}: {step.ok ? 'passed' : 'failed'}
              </strong>{' '}
              <span className="muted">
                ({step.status ?? 'no response'}
                {step.errorClass ? `, ${step.errorClass}` : ''}, {formatDuration(step.durationMs)})
              </span>
              <p>{step.meaning}</p>
              {step.fix && <p className="fix">Fix: {step.fix}</p>}
            </li>
          ))}
          {result.steps.length === 1 && result.steps[0]?.ok && (
            <li className="muted">Choose a model and test again to check that it answers.</li>
          )}
        </ol>
      )}
    </fieldset>
  );
}
