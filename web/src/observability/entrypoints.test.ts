// The observability entry points start their queries as the route is loaded, with the URL's
// variables, before any screen renders (docs/ui.md#routes-and-preloading).
import { Environment, Network, Observable, RecordSource, Store, type Variables } from 'relay-runtime';
import { describe, expect, it } from 'vitest';
import { sessionList, sessionPage, traceList, tracePage } from './entrypoints.ts';

/** An environment whose network records each request and never answers. */
function recording() {
  const sent: { name: string; variables: Variables }[] = [];
  const network = Network.create((operation, variables) => {
    sent.push({ name: operation.name, variables });
    return Observable.create(() => undefined);
  });
  return { sent, environment: new Environment({ network, store: new Store(new RecordSource()) }) };
}

describe('the observability entry points', () => {
  it("start the trace list's query with the URL's filters, sort and page", () => {
    const { sent, environment } = recording();
    const queries = traceList.load(environment, { screen: 'traces', projectId: 'p1' }, '?name=chat&sort=COST&after=c1');
    expect(sent).toEqual([
      { name: 'TraceListQuery', variables: expect.objectContaining({ nameContains: 'chat', sortBy: 'COST', sortDirection: 'DESC', first: 50, after: 'c1' }) },
    ]);
    expect(Object.keys(queries)).toEqual(['list']);
  });

  it("start a trace's query, and the selected span's beside it", () => {
    const { sent, environment } = recording();
    tracePage.load(environment, { screen: 'trace', projectId: 'p1', traceId: 't1', spanId: null }, '');
    expect(sent.map(({ name }) => name)).toEqual(['TracePageQuery']);
    const selected = recording();
    const queries = tracePage.load(selected.environment, { screen: 'trace', projectId: 'p1', traceId: 't1', spanId: 's1' }, '?span=s1');
    expect(selected.sent).toEqual([
      { name: 'TracePageQuery', variables: { traceId: 't1' } },
      { name: 'SpanDetailsQuery', variables: { traceId: 't1', spanId: 's1' } },
    ]);
    expect(queries.span).not.toBeNull();
  });

  it("start the session list's query with the URL's filters and page, and a session's with its first turns", () => {
    const { sent, environment } = recording();
    sessionList.load(environment, { screen: 'sessions', projectId: 'p1' }, '?search=abc&user=u1&before=c1');
    expect(sent).toEqual([
      { name: 'SessionListQuery', variables: expect.objectContaining({ search: 'abc', userId: 'u1', last: 50, before: 'c1', first: undefined }) },
    ]);
    const page = recording();
    const queries = sessionPage.load(page.environment, { screen: 'session', projectId: 'p1', sessionId: 's/1' }, '');
    expect(page.sent).toEqual([{ name: 'SessionPageQuery', variables: { sessionId: 's/1' } }]);
    expect(Object.keys(queries)).toEqual(['session']);
  });
});
