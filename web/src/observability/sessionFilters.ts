// The session list's state lives in its URL (docs/sessions.md#in-the-ui), as the trace list's does:
// these turn the query string into the `sessions` variables and back.
import { instantOf, ranges, type Range } from './filters.ts';

export const SESSION_PAGE_SIZE = 50;

/** What the URL says, as typed in the form. */
export interface SessionListState {
  range: Range | null;
  from: string;
  to: string;
  search: string;
  user: string;
  environment: string;
  text: string;
  after: string | null;
  before: string | null;
}

const textKeys = ['from', 'to', 'search', 'user', 'environment', 'text'] as const;

export function parseSessionState(search: string): SessionListState {
  const params = new URLSearchParams(search);
  const text = Object.fromEntries(textKeys.map((key) => [key, params.get(key) ?? ''])) as Record<(typeof textKeys)[number], string>;
  const range = params.get('range');
  return {
    ...text,
    range: range !== null && range in ranges ? (range as Range) : null,
    after: params.get('after'),
    before: params.get('before'),
  };
}

/** The query string of a state; empty fields are left out, so the plain list's URL stays plain. */
export function sessionStateSearch(state: SessionListState): string {
  const params = new URLSearchParams();
  if (state.range) params.set('range', state.range);
  for (const key of textKeys) if (state[key].trim() !== '') params.set(key, state[key].trim());
  if (state.after) params.set('after', state.after);
  if (state.before) params.set('before', state.before);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The `sessions` variables for the URL's state, relative ranges counted back from `now`. */
export function sessionListVariables(state: SessionListState, now: number) {
  const optional = (text: string) => (text.trim() === '' ? undefined : text.trim());
  const page = state.before
    ? { last: SESSION_PAGE_SIZE, before: state.before, first: undefined, after: undefined }
    : { first: SESSION_PAGE_SIZE, after: state.after ?? undefined, last: undefined, before: undefined };
  return {
    startedAfter: state.range ? new Date(now - ranges[state.range] * 3_600_000).toISOString() : instantOf(state.from),
    startedBefore: state.range ? undefined : instantOf(state.to),
    search: optional(state.search),
    userId: optional(state.user),
    environment: optional(state.environment),
    text: optional(state.text),
    ...page,
  };
}
