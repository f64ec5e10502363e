// The sign-in page (docs/ui.md#signing-in): email and password to `POST /auth/login`, which sets
// the session cookie; then back to the page that asked (`?next=`) or the user's project.
import { useState, type FormEvent } from 'react';
import { Field, formText, FormError } from '../components/forms.tsx';
import { ApiError } from '../relay.ts';
import { localPath, useRouter } from '../router.tsx';
import { fieldErrors, landing, logIn, useSession } from '../session.tsx';

export function LoginPage() {
  const { location, navigate } = useRouter();
  const { changed } = useSession();
  const query = new URLSearchParams(location.search);
  const [error, setError] = useState<ApiError | null>(null);
  const [pending, setPending] = useState(false);
  const fields = error ? fieldErrors(error.detail) : {};

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    try {
      const signedIn = await logIn(formText(form, 'email'), formText(form, 'password'));
      changed();
      const next = localPath(query.get('next'));
      navigate(next === '/' ? landing(signedIn) : next, { replace: true });
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(String(caught), 0));
      setPending(false);
    }
  };

  return (
    <div className="auth-page">
      <h1>Sign in to Assay</h1>
      {query.has('password-set') && (
        <p className="notice" role="status">
          Your password is set. Sign in with it.
        </p>
      )}
      <form className="auth-form" onSubmit={(event) => void submit(event)} aria-busy={pending}>
        <Field label="Email" name="email" type="email" autoComplete="username" required autoFocus error={fields.email} />
        <Field label="Password" name="password" type="password" autoComplete="current-password" required error={fields.password} />
        <FormError message={error && !fields.email && !fields.password ? error.message : null} />
        <button type="submit" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="muted small">No password yet? Ask a project admin for a one-time link to set one.</p>
    </div>
  );
}
