import type { ButtonHTMLAttributes, Ref } from 'react';

type BusyButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick' | 'type'> & {
  /** Its work (or another's it must not overlap) is running: a press is ignored. */
  busy: boolean;
  /** Nothing to do yet (a draft unedited): marked unusable and a press ignored, but not said to be busy. */
  nothingToDo?: boolean;
  onPress: () => void;
  /** For a caller that gives focus back to it (a confirmation kept or cancelled). */
  ref?: Ref<HTMLButtonElement>;
};

/**
 * A button marked busy rather than disabled while work runs: Chromium drops focus from a focused
 * button that turns disabled to the page, and a keyboard user who pressed Enter was sent to the
 * window's top. `disabled` stays for a button that cannot be used at all.
 */
export function BusyButton({ busy, nothingToDo = false, onPress, ...button }: BusyButtonProps) {
  return (
    <button
      {...button}
      type="button"
      aria-disabled={busy || nothingToDo || undefined}
      aria-busy={busy || undefined}
      onClick={() => {
        if (!busy && !nothingToDo) onPress();
      }}
    />
  );
}

type SubmitButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'disabled'> & {
  /** Its form's save is running. */
  busy: boolean;
  /** Nothing to submit (a field empty or unedited), not busy. Either way a press submits, and the form's onSubmit must ignore it. */
  nothingToDo: boolean;
};

/**
 * A form's submit button marked unusable rather than disabled, for the reason BusyButton is: a save
 * that empties its field (a key sent, a draft dropped) would otherwise disable the focused button and
 * send focus to the window's top. The form guards its onSubmit, which Enter in a field reaches too.
 */
export function SubmitButton({ busy, nothingToDo, ...button }: SubmitButtonProps) {
  return <button {...button} type="submit" aria-disabled={busy || nothingToDo || undefined} aria-busy={busy || undefined} />;
}
