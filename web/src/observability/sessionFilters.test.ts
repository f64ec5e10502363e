import { describe, expect, it } from 'vitest';
import { parseSessionState, SESSION_PAGE_SIZE, sessionListVariables, sessionStateSearch } from './sessionFilters.ts';

describe('the session list URL', () => {
  it('reads every filter and page from the query string and writes it back the same', () => {
    const search = '?range=7d&search=chat&user=u1&environment=prod&text=refund&after=abc';
    const state = parseSessionState(search);
    expect(state).toMatchObject({ range: '7d', search: 'chat', user: 'u1', environment: 'prod', text: 'refund', after: 'abc', before: null });
    expect(sessionStateSearch(state)).toBe(search);
    expect(sessionStateSearch(parseSessionState('?range=3y'))).toBe('');
  });

  it('turns the state into the API variables: a relative range from now, a custom one as instants, pages both ways', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(sessionListVariables(parseSessionState('?range=24h&user=%20u1%20'), now)).toEqual({
      startedAfter: '2026-01-01T00:00:00.000Z',
      startedBefore: undefined,
      search: undefined,
      userId: 'u1',
      environment: undefined,
      text: undefined,
      first: SESSION_PAGE_SIZE,
      after: undefined,
      last: undefined,
      before: undefined,
    });
    const custom = sessionListVariables(parseSessionState('?from=2026-01-01T10:00&before=c'), now);
    expect(custom).toMatchObject({ startedAfter: new Date('2026-01-01T10:00').toISOString(), last: SESSION_PAGE_SIZE, before: 'c', first: undefined });
  });
});
