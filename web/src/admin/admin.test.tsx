// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Field } from '../forms.tsx';
import { actionName, auditActions, auditVariables, detailsText, effectiveText, optionalNumber } from './format.ts';
import { ConfirmButton, CopyOnce } from './parts.tsx';
import { RetentionForm } from './RetentionForm.tsx';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('the audit log', () => {
  it('names every action as REST does (docs/access.md#audit)', () => {
    expect(auditActions.map(actionName)).toEqual([
      'api_key.created',
      'api_key.revoked',
      'login.failed',
      'login.succeeded',
      'logout',
      'membership.added',
      'membership.removed',
      'membership.role_changed',
      'password_link.issued',
      'password.set',
      'project.created',
      'project.updated',
      'user.created',
      'user.updated',
    ]);
  });

  it('shows details for people', () => {
    expect(detailsText({ name: 'ci', scopes: ['read', 'ingest'], expires_at: '2026-01-01' })).toBe('name: ci; scopes: read, ingest; expires at: 2026-01-01');
    expect(detailsText({ before: { role: 'viewer' } })).toBe('before: {"role":"viewer"}');
    expect(detailsText(null)).toBe('');
    expect(detailsText([1, 2])).toBe('[1,2]');
  });

  it('reads the page from the URL, ignoring an unknown action', () => {
    expect(auditVariables('')).toEqual({ action: null, first: 50, after: null });
    expect(auditVariables('?action=LOGOUT&after=c1')).toEqual({ action: 'LOGOUT', first: 50, after: 'c1' });
    expect(auditVariables('?action=DROP_TABLES&before=c2')).toEqual({ action: null, last: 50, before: 'c2' });
  });
});

describe('prices', () => {
  it('says when a price starts', () => {
    expect(effectiveText('1970-01-01T00:00:00.000Z')).toBe('always');
    expect(effectiveText('2024-05-13T00:00:00.000Z')).toMatch(/2024/);
    expect(effectiveText('2024-05-13T00:00:00.000Z')).not.toMatch(/:/);
    expect(effectiveText('2024-05-13T09:30:00.000Z')).toMatch(/9:30/);
  });

  it('leaves an empty number to the API', () => {
    expect(optionalNumber('')).toBeUndefined();
    expect(optionalNumber('  ')).toBeUndefined();
    expect(optionalNumber('0.5')).toBe(0.5);
    expect(optionalNumber('0')).toBe(0);
  });
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

describe('Field', () => {
  it('ties its label, hint and error to the input', () => {
    render(<Field label="New password" name="password" hint="12 to 1024 characters." error="Too short." />);
    const input = screen.getByLabelText('New password');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const described = (input.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent);
    expect(described).toEqual(['12 to 1024 characters.', 'Too short.']);
    cleanup();
    render(<Field label="Email" name="email" />);
    expect(screen.getByLabelText('Email').hasAttribute('aria-invalid')).toBe(false);
    expect(screen.getByLabelText('Email').hasAttribute('aria-describedby')).toBe(false);
  });
});

describe('RetentionForm', () => {
  it('shows the days kept, saves a number, and saves empty as keep forever', () => {
    const onSave = vi.fn();
    render(<RetentionForm days={30} saving={false} error={null} onSave={onSave} />);
    const input = screen.getByLabelText<HTMLInputElement>('Days kept');
    expect(input.value).toBe('30');
    fireEvent.change(input, { target: { value: '7' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenLastCalledWith(7);
    fireEvent.change(input, { target: { value: '' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSave).toHaveBeenLastCalledWith(null);
  });

  it('starts empty for a project keeping its traces, and shows a refusal beside the field', () => {
    render(<RetentionForm days={null} saving error="Input should be greater than or equal to 1" onSave={vi.fn()} />);
    const input = screen.getByLabelText<HTMLInputElement>('Days kept');
    expect(input.value).toBe('');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Save' }).disabled).toBe(true);
  });
});
