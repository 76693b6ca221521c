import type { ButtonHTMLAttributes, Ref } from 'react';

type BusyButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick' | 'type'> & {
  /** Its work (or another's it must not overlap) is running: a press is ignored. */
  busy: boolean;
  onPress: () => void;
  /** For a caller that gives focus back to it (a confirmation kept or cancelled). */
  ref?: Ref<HTMLButtonElement>;
};

/**
 * A button marked busy rather than disabled while work runs: Chromium drops focus from a focused
 * button that turns disabled to the page, and a keyboard user who pressed Enter was sent to the
 * window's top. `disabled` stays for a button that cannot be used at all.
 */
export function BusyButton({ busy, onPress, ...button }: BusyButtonProps) {
  return (
    <button
      {...button}
      type="button"
      aria-disabled={busy || undefined}
      onClick={() => {
        if (!busy) onPress();
      }}
    />
  );
}

type SubmitButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'disabled'> & {
  /** Busy, or nothing to submit (a field empty or unedited): a press submits, and the form's onSubmit must ignore it. */
  unusable: boolean;
};

/**
 * A form's submit button marked unusable rather than disabled, for the reason BusyButton is: a save
 * that empties its field (a key sent, a draft dropped) would otherwise disable the focused button and
 * send focus to the window's top. The form guards its onSubmit, which Enter in a field reaches too.
 */
export function SubmitButton({ unusable, ...button }: SubmitButtonProps) {
  return <button {...button} type="submit" aria-disabled={unusable || undefined} />;
}
