// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../relay.ts';
import { Router } from '../router.tsx';
import { ErrorBoundary } from './states.tsx';

// React reports each error a boundary catches on the console; here they are the point.
beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function Failing({ error }: { error: Error | null }): null {
  if (error) throw error;
  return null;
}

describe('ErrorBoundary', () => {
  it('shows a failed screen with its message, and tries again on demand', () => {
    const onRetry = vi.fn();
    function Screen() {
      const [error, setError] = useState<Error | null>(new Error('The server answered 500'));
      return (
        <ErrorBoundary
          onRetry={() => {
            onRetry();
            setError(null);
          }}
        >
          <Failing error={error} />
          <p>loaded</p>
        </ErrorBoundary>
      );
    }
    render(<Screen />);
    expect(screen.getByRole('alert').textContent).toContain('Something went wrong');
    expect(screen.getByRole('alert').textContent).toContain('The server answered 500');
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(onRetry).toHaveBeenCalledOnce();
    expect(screen.getByText('loaded')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('opens the login page when the API wants a sign-in, to come back after it', () => {
    window.history.replaceState(null, '', '/p/p1/admin/audit?action=LOGOUT');
    render(
      <Router>
        <ErrorBoundary resetKey="/a">
          <Failing error={new ApiError('Authentication required', 401, 'UNAUTHENTICATED')} />
        </ErrorBoundary>
      </Router>,
    );
    expect(window.location.pathname).toBe('/login');
    expect(new URLSearchParams(window.location.search).get('next')).toBe('/p/p1/admin/audit?action=LOGOUT');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('clears a caught error when the screen changes', () => {
    const { rerender } = render(
      <ErrorBoundary resetKey="/a">
        <Failing error={new Error('gone')} />
      </ErrorBoundary>,
    );
    expect(screen.getByRole('alert').textContent).toContain('gone');
    rerender(
      <ErrorBoundary resetKey="/b">
        <p>another screen</p>
      </ErrorBoundary>,
    );
    expect(screen.getByText('another screen')).toBeTruthy();
  });
});
