import type { ErrorExplanation } from '../../../proxy/contracts/errors.ts';
import { showInvisible } from '../common/format.ts';
import { readableErrorMessage } from './copyText.ts';

export function ErrorExplanationView({ explanation, message }: { explanation: ErrorExplanation; message: string | null }) {
  return (
    <section className="error-explanation" aria-labelledby="error-title">
      <h3 id="error-title">
        {explanation.title} <code className="error-class">{explanation.errorClass}</code>
      </h3>
      {message && <p className="error-message">{showInvisible(readableErrorMessage(message))}</p>}
      <dl>
        <dt>What it means</dt>
        <dd>{explanation.meaning}</dd>
        <dt>How to fix it</dt>
        <dd>{explanation.fix}</dd>
        <dt>Retry</dt>
        <dd>{explanation.retryable ? 'Limited retries with backoff are allowed.' : 'Do not retry automatically: fix the cause first.'}</dd>
      </dl>
    </section>
  );
}
