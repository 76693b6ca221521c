// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BusyButton, SubmitButton } from '../../../renderer/src/common/BusyButton.tsx';

afterEach(cleanup);

const marks = (name: string) => {
  const button = screen.getByRole('button', { name });
  return { disabled: button.getAttribute('aria-disabled'), busy: button.getAttribute('aria-busy') };
};

describe('a button marked rather than disabled', () => {
  it('is said to be busy only while its work runs, not while there is nothing to do', () => {
    const { rerender } = render(
      <form>
        <SubmitButton busy={false} nothingToDo>
          Save key
        </SubmitButton>
      </form>,
    );
    // An empty field: unusable, and a screen reader (or the progress cursor) must not say work is under way.
    expect(marks('Save key')).toEqual({ disabled: 'true', busy: null });
    rerender(
      <form>
        <SubmitButton busy nothingToDo>
          Save key
        </SubmitButton>
      </form>,
    );
    expect(marks('Save key')).toEqual({ disabled: 'true', busy: 'true' });
    rerender(
      <form>
        <SubmitButton busy={false} nothingToDo={false}>
          Save key
        </SubmitButton>
      </form>,
    );
    expect(marks('Save key')).toEqual({ disabled: null, busy: null });
  });

  it('ignores a press while busy or with nothing to do', () => {
    const onPress = vi.fn();
    const { rerender } = render(
      <BusyButton busy={false} nothingToDo onPress={onPress}>
        Save prices
      </BusyButton>,
    );
    expect(marks('Save prices')).toEqual({ disabled: 'true', busy: null });
    fireEvent.click(screen.getByRole('button', { name: 'Save prices' }));
    rerender(
      <BusyButton busy onPress={onPress}>
        Save prices
      </BusyButton>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Save prices' }));
    expect(onPress).not.toHaveBeenCalled();
    rerender(
      <BusyButton busy={false} onPress={onPress}>
        Save prices
      </BusyButton>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Save prices' }));
    expect(onPress).toHaveBeenCalledTimes(1);
  });
});
