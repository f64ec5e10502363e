// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RetentionForm } from './RetentionForm.tsx';

afterEach(() => {
  cleanup();
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
