// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfirmButton, CopyOnce } from './actions.tsx';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('ConfirmButton', () => {
  it('asks first, with the focus on the confirmation; Escape and Cancel change nothing', () => {
    const onConfirm = vi.fn();
    render(<ConfirmButton label="Revoke" question="Revoke ci?" confirm="Revoke key" onConfirm={onConfirm} />);
    fireEvent.click(screen.getByRole('button', { name: 'Revoke' }));
    const group = screen.getByRole('group', { name: 'Revoke ci?' });
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Revoke key' }));
    fireEvent.keyDown(group, { key: 'Escape' });
    expect(screen.queryByRole('group')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Revoke' }));
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onConfirm).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Revoke' }));
    fireEvent.click(screen.getByRole('button', { name: 'Revoke key' }));
    expect(onConfirm).toHaveBeenCalledOnce();
    expect(screen.getByRole('button', { name: 'Revoke' })).toBeTruthy();
  });
});

describe('CopyOnce', () => {
  it('copies the secret, or selects it when the clipboard refuses, and is gone once done', async () => {
    const writeText = vi.spyOn(navigator.clipboard, 'writeText');
    const onDone = vi.fn();
    render(<CopyOnce label="New key ab12…" value="ab12-secret" onDone={onDone} />);
    expect(screen.getByRole('region', { name: 'New key ab12…' })).toBeTruthy();
    expect(screen.getByRole<HTMLInputElement>('textbox', { name: 'New key ab12…' }).value).toBe('ab12-secret');
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }));
    await screen.findByText('Copied.');
    expect(writeText).toHaveBeenCalledWith('ab12-secret');
    writeText.mockRejectedValueOnce(new DOMException('denied', 'NotAllowedError'));
    fireEvent.click(screen.getByRole('button', { name: 'Copy' }));
    await screen.findByText(/press Ctrl\+C/);
    fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(onDone).toHaveBeenCalledOnce();
  });
});
