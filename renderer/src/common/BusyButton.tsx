import type { ButtonHTMLAttributes } from 'react';

type BusyButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick' | 'type'> & {
  /** Its work (or another's it must not overlap) is running: a press is ignored. */
  busy: boolean;
  onPress: () => void;
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
