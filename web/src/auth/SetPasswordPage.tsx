// `/set-password#token=…` (docs/access.md#password-links): the token rides in the fragment, which
// the browser sends to no server; the page posts it with the new password to `POST /auth/password`,
// shows the policy's 422 beside the field, and then signs in with the email asked alongside (the
// link does not carry it; a password manager also wants it in the same form).
import { useState, type FormEvent } from 'react';
import { Field, formText, FormError } from '../components/forms.tsx';
import { ApiError } from '../relay.ts';
import { useRouter } from '../router.tsx';
import { fieldErrors, logIn, setPassword, useSession } from '../session.tsx';
import { landing } from '../session.tsx';

/** The token in a fragment such as `#token=abc`; null when there is none. */
export function tokenFromHash(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get('token') || null;
}

export function SetPasswordPage() {
  const { navigate } = useRouter();
  const { changed } = useSession();
  const [token] = useState(() => tokenFromHash(window.location.hash));
  const [error, setError] = useState<ApiError | null>(null);
  const [mismatch, setMismatch] = useState(false);
  const [pending, setPending] = useState(false);
  const fields = error ? fieldErrors(error.detail) : {};

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = formText(form, 'password');
    setMismatch(password !== formText(form, 'confirm'));
    if (password !== formText(form, 'confirm') || !token) return;
    setPending(true);
    try {
      await setPassword(token, password);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(String(caught), 0));
      setPending(false);
      return;
    }
    try {
      const signedIn = await logIn(formText(form, 'email'), password);
      changed();
      navigate(landing(signedIn), { replace: true });
    } catch {
      // The password is set, but not for this email (a typo): signing in is the login page's.
      navigate('/login?password-set', { replace: true });
    }
  };

  return (
    <div className="auth-page">
      <h1>Set your password</h1>
      {token === null ? (
        <p className="form-error" role="alert">
          This link has no token. Open the whole link you were given, or ask a project admin for a new one.
        </p>
      ) : (
        <form className="auth-form" onSubmit={(event) => void submit(event)} aria-busy={pending}>
          <Field label="Your email" name="email" type="email" autoComplete="username" required autoFocus />
          <Field
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            hint="12 to 1024 characters."
            error={fields.password}
          />
          <Field
            label="Repeat it"
            name="confirm"
            type="password"
            autoComplete="new-password"
            required
            error={mismatch ? 'The two passwords differ.' : undefined}
          />
          <FormError message={fields.token ? `${fields.token} Ask a project admin for a new link.` : error && !fields.password ? error.message : null} />
          <button type="submit" disabled={pending}>
            {pending ? 'Setting…' : 'Set password'}
          </button>
        </form>
      )}
    </div>
  );
}
