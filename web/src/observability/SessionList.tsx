// The session list (docs/sessions.md#in-the-ui): the traces that share a session id, the one
// active last first with its figures, previews and scores, filtered from a form into the URL and
// paged by cursor.
import { Suspense, useEffect, useMemo, useState, type FormEvent } from 'react';
import { graphql, useFragment, usePreloadedQuery, useQueryLoader, type PreloadedQuery } from 'react-relay';
import type { SessionListQuery } from '../__generated__/SessionListQuery.graphql.ts';
import type { SessionListRow_session$key } from '../__generated__/SessionListRow_session.graphql.ts';
import type { SessionListTable_query$key } from '../__generated__/SessionListTable_query.graphql.ts';
import { Empty, ErrorBoundary, Loading } from '../components/states.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import { formatCost, formatCount, formatTime } from '../format.ts';
import { Link, paths, useRouter, type RouteOf } from '../router.tsx';
import type { SessionListQueries } from './entrypoints.ts';
import { CursorPager, TimeRangeFields } from './ListControls.tsx';
import { contentPreview } from './messages.ts';
import { SessionScoreChips } from './SessionScores.tsx';
import { parseSessionState, sessionStateSearch, type SessionListState } from './sessionFilters.ts';
import { SelectBox, useSelection, type Selection } from '../components/selection.tsx';
import { AddToTestsetPanel } from '../testsets/AddToTestsetPanel.tsx';

const query = graphql`
  query SessionListQuery(
    $first: Int
    $after: String
    $last: Int
    $before: String
    $startedAfter: DateTime
    $startedBefore: DateTime
    $search: String
    $userId: String
    $environment: String
    $text: String
  ) {
    ...SessionListTable_query
  }
`;

// A page of the table, by cursor.
const tableFragment = graphql`
  fragment SessionListTable_query on Query {
    sessions(
      first: $first
      after: $after
      last: $last
      before: $before
      startedAfter: $startedAfter
      startedBefore: $startedBefore
      search: $search
      userId: $userId
      environment: $environment
      text: $text
    ) {
      edges {
        node {
          id
          ...SessionListRow_session
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`;

const rowFragment = graphql`
  fragment SessionListRow_session on Session {
    sessionId
    firstSeen
    lastSeen
    traceCount
    failedTraceCount
    cost
    userId
    environment
    firstInput
    lastOutput
    tokens {
      totalTokens
    }
    ...SessionScoreChips_session
  }
`;

function SessionRow({ projectId, session: sessionRef, selection }: { projectId: string; session: SessionListRow_session$key; selection: Selection }) {
  const session = useFragment(rowFragment, sessionRef);
  return (
    <tr className={session.failedTraceCount > 0 ? 'failed' : undefined}>
      <td>
        <SelectBox selection={selection} id={session.sessionId} label={`Select session ${session.sessionId}`} />
      </td>
      <td>
        <Link to={paths.session(projectId, session.sessionId)}>{session.sessionId}</Link>
        <span className="muted small">
          {' '}
          {session.environment ? `· ${session.environment}` : ''} {session.userId ? `· ${session.userId}` : ''}
        </span>
      </td>
      <td>{formatTime(session.firstSeen)}</td>
      <td>{formatTime(session.lastSeen)}</td>
      <td className="numeric">{formatCount(session.traceCount)}</td>
      <td className="numeric">{session.failedTraceCount > 0 ? <span className="badge error">{session.failedTraceCount}</span> : '0'}</td>
      <td className="numeric">{formatCount(session.tokens.totalTokens)}</td>
      <td className="numeric">{formatCost(session.cost)}</td>
      <td className="preview">{contentPreview(session.firstInput)}</td>
      <td className="preview">{contentPreview(session.lastOutput)}</td>
      <td>
        <SessionScoreChips session={session} />
      </td>
    </tr>
  );
}

const columns: { label: string; numeric?: boolean }[] = [
  { label: 'Session' },
  { label: 'First seen' },
  { label: 'Last seen' },
  { label: 'Traces', numeric: true },
  { label: 'Failed', numeric: true },
  { label: 'Tokens', numeric: true },
  { label: 'Cost', numeric: true },
  { label: 'First input' },
  { label: 'Last output' },
  { label: 'Scores' },
];

interface TableProps {
  projectId: string;
  state: SessionListState;
  apply: (next: SessionListState) => void;
}

function SessionTable({ projectId, state, apply, query: queryRef }: TableProps & { query: SessionListTable_query$key }) {
  const { sessions } = useFragment(tableFragment, queryRef);
  const selection = useSelection();
  return (
    <>
      <AddToTestsetPanel
        projectId={projectId}
        selection={selection.ids.length > 0 ? { sessionIds: selection.ids } : null}
        label={`Add the traces of ${selection.ids.length} selected sessions to a test set`}
      />
      {sessions.edges.length === 0 ? (
        <Empty title="No sessions match">
          {sessionStateSearch(state) === ''
            ? 'Traces that name a session id (session.id, langfuse.session.id, gen_ai.conversation.id, …) form sessions (docs/sessions.md).'
            : 'Try other filters.'}
        </Empty>
      ) : (
        <table className="traces sessions">
          <caption className="visually-hidden">Sessions, the one active last first</caption>
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Selected</span>
              </th>
              {columns.map(({ label, numeric }) => (
                <th key={label} scope="col" className={numeric ? 'numeric' : undefined}>
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {sessions.edges.map(({ node }) => (
              <SessionRow key={node.id} projectId={projectId} session={node} selection={selection} />
            ))}
          </tbody>
        </table>
      )}
      <CursorPager pageInfo={sessions.pageInfo} onPage={(cursors) => apply({ ...state, ...cursors })} />
    </>
  );
}

function Results({ list, ...table }: TableProps & { list: PreloadedQuery<SessionListQuery> }) {
  const data = usePreloadedQuery<SessionListQuery>(query, list);
  return <SessionTable {...table} query={data} />;
}

/** The filters, applied with a button into the URL. */
function SessionFilters({ state, apply }: { state: SessionListState; apply: (next: SessionListState) => void }) {
  const [draft, setDraft] = useState(state);
  useEffect(() => setDraft(state), [state]);
  const set = <K extends keyof SessionListState>(key: K, value: SessionListState[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply({ ...draft, after: null, before: null });
  };
  const text = (key: 'search' | 'user' | 'environment' | 'text', label: string) => (
    <label>
      {label}
      <input type="search" value={draft[key]} onChange={(event) => set(key, event.target.value)} />
    </label>
  );
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter sessions">
      <TimeRangeFields legend="Active" value={draft} onChange={(next) => setDraft((current) => ({ ...current, ...next }))} />
      <fieldset>
        <legend>Session</legend>
        {text('search', 'Session id contains')}
        {text('user', 'User id')}
        {text('environment', 'Environment')}
        {text('text', 'Text in inputs or outputs')}
      </fieldset>
      <div className="filter-actions">
        <button type="submit">Apply filters</button>
        <button type="button" className="secondary" onClick={() => apply(parseSessionState(''))}>
          Clear
        </button>
      </div>
    </form>
  );
}

export function SessionList({ route: { projectId }, queries }: ScreenProps<RouteOf<'sessions'>, SessionListQueries>) {
  const { location, navigate } = useRouter();
  const state = useMemo(() => parseSessionState(location.search), [location.search]);
  const [list, loadList] = useQueryLoader(query, queries.list);
  const apply = (next: SessionListState) => navigate(paths.sessions(projectId, sessionStateSearch(next)));
  return (
    <div className="trace-list">
      <div className="screen-head">
        <h1>Sessions</h1>
      </div>
      <SessionFilters state={state} apply={apply} />
      <ErrorBoundary resetKey={location.search} onRetry={() => list && loadList(list.variables, { fetchPolicy: 'network-only' })}>
        <Suspense fallback={<Loading label="Loading sessions…" />}>
          {list && <Results projectId={projectId} state={state} apply={apply} list={list} />}
        </Suspense>
      </ErrorBoundary>
    </div>
  );
}
