import { useEffect, useId, useRef } from 'react';
import { BusyButton } from './BusyButton.tsx';

/**
 * Asks before something that cannot be undone, inline, as an alert dialog (WAI-ARIA APG): named by
 * its question and described by its warning, it takes focus on its safe choice, so Enter cancels,
 * and Escape cancels too. Giving focus back to what opened it is the caller's (that is rendered
 * again only once this is gone).
 */
export function ConfirmChoice({
  question,
  warning,
  confirmLabel,
  cancelLabel,
  disabled = false,
  onConfirm,
  onCancel,
}: {
  question: string;
  warning: string;
  confirmLabel: string;
  cancelLabel: string;
  disabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const cancelButton = useRef<HTMLButtonElement>(null);
  const questionId = useId();
  const warningId = useId();
  useEffect(() => cancelButton.current?.focus(), []);
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-labelledby={questionId}
      aria-describedby={warningId}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <span id={questionId} className="visually-hidden">
        {question}
      </span>
      <span id={warningId} className="warn">
        {warning}
      </span>{' '}
      <BusyButton className="danger" busy={disabled} onPress={onConfirm}>
        {confirmLabel}
      </BusyButton>
      <button type="button" ref={cancelButton} onClick={onCancel}>
        {cancelLabel}
      </button>
    </div>
  );
}
