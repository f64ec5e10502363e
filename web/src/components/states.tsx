// The states every screen shares: loading, empty, error (docs/ui.md#quality).
import { Component, useEffect, type ReactNode } from 'react';
import { ApiError } from '../relay.ts';
import { paths, useRouter } from '../router.tsx';

export function Loading({ label }: { label: string }) {
  return (
    <div className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state empty">
      <p className="state-title">{title}</p>
      {children}
    </div>
  );
}

/** With auth on and no session (a 401), the screen gives way to the login page, which comes back to it. */
function SignIn() {
  const { location, navigate } = useRouter();
  useEffect(() => {
    if (location.pathname !== '/login') navigate(paths.login(location.pathname + location.search), { replace: true });
  }, [location, navigate]);
  return <Loading label="Opening the sign-in page…" />;
}

export function ErrorMessage({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError && (error.status === 401 || error.code === 'UNAUTHENTICATED')) return <SignIn />;
  return (
    <div className="state error" role="alert">
      <p className="state-title">Something went wrong</p>
      <p>{message}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

interface BoundaryProps {
  children: ReactNode;
  /** Changing it clears a caught error (a new screen, new variables). */
  resetKey?: unknown;
  /** "Try again": fetch anew (a Relay query that failed stays failed for the same fetch key). */
  onRetry?: () => void;
  /** What to show instead for an error this screen handles itself; null for the usual message. */
  fallback?: (error: unknown) => ReactNode;
}

/** Catches a screen's failed query or render and offers to try again. */
export class ErrorBoundary extends Component<BoundaryProps, { error: unknown; key: unknown }> {
  override state = { error: null as unknown, key: undefined as unknown };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  static getDerivedStateFromProps(props: BoundaryProps, state: { error: unknown; key: unknown }) {
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }

  override render() {
    if (this.state.error) {
      const own = this.props.fallback?.(this.state.error);
      if (own) return own;
      const retry = () => {
        this.props.onRetry?.();
        this.setState({ error: null });
      };
      return <ErrorMessage error={this.state.error} retry={retry} />;
    }
    return this.props.children;
  }
}

/**
 * A table's head row: a header cell per column, `numeric` ones aligned as their figures; with
 * `actions`, a last column for each row's buttons, named for screen readers only.
 */
export function HeadRow({ columns, numeric = [], actions = false }: { columns: readonly string[]; numeric?: readonly string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col" className={numeric.includes(column) ? 'numeric' : undefined}>
            {column}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/** Figures as a description list: each label over its value. */
export function Figures({ figures, label }: { figures: readonly (readonly [string, string])[]; label?: string }) {
  return (
    <dl className="metrics" aria-label={label}>
      {figures.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
