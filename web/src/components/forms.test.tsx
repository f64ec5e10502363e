// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Field } from './forms.tsx';

afterEach(() => {
  cleanup();
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
