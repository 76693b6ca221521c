// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SwitchCheckResponse } from '../../../proxy/contracts/profileViews.ts';
import { SwitchWarning } from '../../../renderer/src/profiles/SwitchWarning.tsx';

afterEach(cleanup);

const CHECK: SwitchCheckResponse = { profileId: 'backup', inFlight: 2, recentModels: [], missingModels: [], modelListKnown: true };

describe('SwitchWarning', () => {
  it('takes focus on its safe choice, so a keyboard user meets it without searching', () => {
    render(<SwitchWarning check={CHECK} profileName="Backup" onConfirm={() => undefined} onCancel={() => undefined} />);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
  });

  it('is cancelled with Escape', () => {
    const onCancel = vi.fn();
    const onConfirm = vi.fn();
    render(<SwitchWarning check={CHECK} profileName="Backup" onConfirm={onConfirm} onCancel={onCancel} />);
    fireEvent.keyDown(screen.getByRole('alertdialog'), { key: 'Escape' });
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(onConfirm).not.toHaveBeenCalled();
  });
});
