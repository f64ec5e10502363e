// Signing in and out (docs/ui.md#signing-in): REST's `/auth/*`, which set and clear the HttpOnly
// session cookie that every later request carries (docs/access.md#sessions). Each sign-in or
// sign-out starts a new "epoch", which makes new Relay environments, so no answer cached for one
// user is shown to the next.
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { ApiError, type InputIssue } from './relay.ts';
import { paths } from './router.tsx';

export interface Membership {
  project: { id: string; name: string };
  role: 'admin' | 'member' | 'viewer';
}

/** The answer of `POST /auth/login` and `GET /auth/me`. */
export interface SignedIn {
  user: { id: string; email: string; name: string | null; is_admin: boolean };
  memberships: Membership[];
}

/** Where a user lands without a `next`: the project called "default" (else their first) or `/`. */
export function landing({ memberships }: SignedIn): string {
  const project = memberships.find((membership) => membership.project.name === 'default') ?? memberships[0];
  return project ? paths.traces(project.project.id) : '/';
}

/** "15 minutes" for a `Retry-After` of 900: how long to wait, in words, rounded up. */
export function retryAfterWords(seconds: number): string {
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  if (!Number.isFinite(seconds) || seconds <= 0) return 'a moment';
  if (seconds < 60) return plural(Math.ceil(seconds), 'second');
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} ${plural(minutes % 60, 'minute')}`;
}

/** A 422's messages by the field they name (the last part of each `loc`), for showing beside it. */
export function fieldErrors(detail: InputIssue[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of detail) {
    const field = String(issue.loc[issue.loc.length - 1] ?? '');
    errors[field] = errors[field] ? `${errors[field]} ${issue.msg}` : issue.msg;
  }
  return errors;
}

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** The refusal of a REST answer: its words for people, its status and a 422's issues. */
async function refusal(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => ({}))) as { detail?: unknown };
  const detail = Array.isArray(body.detail) ? (body.detail as InputIssue[]) : [];
  if (response.status === 401) return new ApiError('Wrong email or password.', 401);
  if (response.status === 429) {
    const wait = retryAfterWords(Number(response.headers.get('retry-after')));
    return new ApiError(`Too many failed sign-ins. Try again in ${wait}.`, 429);
  }
  const message =
    typeof body.detail === 'string' ? body.detail : detail.length > 0 ? detail.map((issue) => issue.msg).join(' ') : `The server answered ${response.status}`;
  return new ApiError(message, response.status, undefined, detail);
}

export async function logIn(email: string, password: string): Promise<SignedIn> {
  const response = await post('/auth/login', { email, password });
  if (!response.ok) throw await refusal(response);
  return (await response.json()) as SignedIn;
}

export async function logOut(): Promise<void> {
  const response = await post('/auth/logout', {});
  if (!response.ok) throw await refusal(response);
}

/** Sets a password with the token of a one-time link (docs/access.md#password-links). */
export async function setPassword(token: string, password: string): Promise<void> {
  const response = await post('/auth/password', { token, password });
  if (!response.ok) throw await refusal(response);
}

interface SessionValue {
  /** Changes at every sign-in and sign-out. */
  epoch: number;
  changed: () => void;
}

const SessionContext = createContext<SessionValue>({ epoch: 0, changed: () => undefined });

export function SessionProvider({ children }: { children: ReactNode }) {
  const [epoch, setEpoch] = useState(0);
  const value = useMemo(() => ({ epoch, changed: () => setEpoch((current) => current + 1) }), [epoch]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export const useSession = (): SessionValue => useContext(SessionContext);
