// The trace list (docs/ui.md#the-trace-list): the API's filters in a form, metrics and a chart over
// the filter, a sortable table a page at a time, refreshed live as ingestion stores traces.
import { startTransition, Suspense, useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { graphql, useLazyLoadQuery, useSubscription } from 'react-relay';
import type { GraphQLSubscriptionConfig } from 'relay-runtime';
import type { TraceListQuery } from '../__generated__/TraceListQuery.graphql.ts';
import type { TraceListSubscription } from '../__generated__/TraceListSubscription.graphql.ts';
import { formatCost, formatCount, formatDuration, formatPercent, formatTime } from '../format.ts';
import { ChecksField } from '../components/forms.tsx';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, ErrorBoundary, Figures, Loading } from '../components/states.tsx';
import {
  filterVariables,
  pageVariables,
  parseState,
  ranges,
  sortedBy,
  spanKinds,
  stateSearch,
  statuses,
  numberOf,
  type Range,
  type SortField,
  type TraceListState,
} from './filters.ts';
import { SeriesChart } from './SeriesChart.tsx';

const query = graphql`
  query TraceListQuery(
    $first: Int
    $after: String
    $last: Int
    $before: String
    $sortBy: TraceSortField
    $sortDirection: SortDirection
    $startedAfter: DateTime
    $startedBefore: DateTime
    $nameContains: String
    $spanKind: [SpanKind!]
    $status: [SpanStatusCode!]
    $userId: String
    $sessionId: String
    $environment: String
    $model: String
    $text: String
    $minCost: Float
    $maxCost: Float
    $minLatency: Float
    $maxLatency: Float
  ) {
    traces(
      first: $first
      after: $after
      last: $last
      before: $before
      sortBy: $sortBy
      sortDirection: $sortDirection
      startedAfter: $startedAfter
      startedBefore: $startedBefore
      nameContains: $nameContains
      spanKind: $spanKind
      status: $status
      userId: $userId
      sessionId: $sessionId
      environment: $environment
      model: $model
      text: $text
      minCost: $minCost
      maxCost: $maxCost
      minLatency: $minLatency
      maxLatency: $maxLatency
    ) {
      edges {
        node {
          ...traceSummaryFields @relay(mask: false)
          spanKind
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
    traceMetrics(
      startedAfter: $startedAfter
      startedBefore: $startedBefore
      nameContains: $nameContains
      spanKind: $spanKind
      status: $status
      userId: $userId
      sessionId: $sessionId
      environment: $environment
      model: $model
      text: $text
      minCost: $minCost
      maxCost: $maxCost
      minLatency: $minLatency
      maxLatency: $maxLatency
    ) {
      count
      errorRate
      cost
      totalTokens
      latency {
        p50
        p95
        p99
      }
    }
    traceSeries(
      buckets: 40
      startedAfter: $startedAfter
      startedBefore: $startedBefore
      nameContains: $nameContains
      spanKind: $spanKind
      status: $status
      userId: $userId
      sessionId: $sessionId
      environment: $environment
      model: $model
      text: $text
      minCost: $minCost
      maxCost: $maxCost
      minLatency: $minLatency
      maxLatency: $maxLatency
    ) {
      start
      end
      count
      errorCount
    }
  }
`;

// A trace's figures, as a row of the list and the head of its page (TracePage.tsx) show them;
// spread unmasked (`@relay(mask: false)`), so no component reads it as a fragment.
export const traceSummaryFields = graphql`
  fragment traceSummaryFields on Trace {
    id
    traceId
    name
    startTime
    latency
    spanCount
    errorCount
    cost
    status
    userId
    environment
    tokens {
      totalTokens
    }
  }
`;

const subscription = graphql`
  subscription TraceListSubscription {
    tracesStored
  }
`;

/** Live refreshes at most this often, however fast ingestion commits. */
const REFRESH_MS = 2000;

const columns: { field: SortField | null; label: string; numeric?: boolean }[] = [
  { field: null, label: 'Name' },
  { field: 'START_TIME', label: 'Started' },
  { field: 'LATENCY', label: 'Latency', numeric: true },
  { field: 'SPAN_COUNT', label: 'Spans', numeric: true },
  { field: 'ERROR_COUNT', label: 'Errors', numeric: true },
  { field: 'TOKENS', label: 'Tokens', numeric: true },
  { field: 'COST', label: 'Cost', numeric: true },
];

function Filters({ state, apply }: { state: TraceListState; apply: (next: TraceListState) => void }) {
  const [draft, setDraft] = useState(state);
  useEffect(() => setDraft(state), [state]);
  const set = <K extends keyof TraceListState>(key: K, value: TraceListState[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply({ ...draft, after: null, before: null });
  };
  const text = (key: 'name' | 'user' | 'session' | 'environment' | 'model' | 'text', label: string) => (
    <label>
      {label}
      <input type="search" value={draft[key]} onChange={(event) => set(key, event.target.value)} />
    </label>
  );
  const number = (key: 'minCost' | 'maxCost' | 'minLatency' | 'maxLatency', label: string) => {
    const invalid = draft[key].trim() !== '' && (numberOf(draft[key]) === undefined || numberOf(draft[key])! < 0);
    return (
      <label>
        {label}
        <input inputMode="decimal" value={draft[key]} aria-invalid={invalid || undefined} onChange={(event) => set(key, event.target.value)} />
      </label>
    );
  };
  // Ranges, statuses and kinds stay folded unless the URL sets one.
  const moreSet =
    [state.minCost, state.maxCost, state.minLatency, state.maxLatency].some((value) => value !== '') || state.statuses.length > 0 || state.kinds.length > 0;
  return (
    <form className="filters" onSubmit={submit} aria-label="Filter traces">
      <fieldset>
        <legend>Time</legend>
        <label>
          Range
          <select value={draft.range ?? ''} onChange={(event) => set('range', (event.target.value || null) as Range | null)}>
            <option value="">All time or custom</option>
            {Object.keys(ranges).map((range) => (
              <option key={range} value={range}>
                Last {range}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="datetime-local" value={draft.from} disabled={draft.range !== null} onChange={(event) => set('from', event.target.value)} />
        </label>
        <label>
          To
          <input type="datetime-local" value={draft.to} disabled={draft.range !== null} onChange={(event) => set('to', event.target.value)} />
        </label>
      </fieldset>
      <fieldset>
        <legend>Trace</legend>
        {text('name', 'Name contains')}
        {text('text', 'Text in inputs or outputs')}
        {text('model', 'Model')}
        {text('user', 'User id')}
        {text('session', 'Session id')}
        {text('environment', 'Environment')}
      </fieldset>
      <details className="more-filters" open={moreSet || undefined}>
        <summary>More filters{moreSet ? ' (some set)' : ''}</summary>
        <div className="more-filters-body">
          <fieldset>
            <legend>Ranges</legend>
            {number('minCost', 'Cost from (USD)')}
            {number('maxCost', 'Cost to (USD)')}
            {number('minLatency', 'Latency from (s)')}
            {number('maxLatency', 'Latency to (s)')}
          </fieldset>
          <ChecksField
            legend="Status"
            options={statuses.map((status) => ({ value: status, label: status }))}
            chosen={draft.statuses}
            onChange={(next) => set('statuses', next)}
          />
          <ChecksField
            legend="Kind of the root span"
            options={spanKinds.map((kind) => ({ value: kind, label: kind }))}
            chosen={draft.kinds}
            onChange={(next) => set('kinds', next)}
          />
        </div>
      </details>
      <div className="filter-actions">
        <button type="submit">Apply filters</button>
        <button type="button" className="secondary" onClick={() => apply(parseState(''))}>
          Clear
        </button>
      </div>
    </form>
  );
}

function Results({ projectId, state, fetchKey, apply }: { projectId: string; state: TraceListState; fetchKey: number; apply: (next: TraceListState) => void }) {
  // `now` is fixed per state, so a relative range does not move (and refetch) at every render.
  const variables = useMemo(
    () => ({ ...filterVariables(state, Date.now()), ...pageVariables(state), sortBy: state.sort, sortDirection: state.direction }),
    [state],
  );
  const data = useLazyLoadQuery<TraceListQuery>(query, variables, { fetchKey, fetchPolicy: fetchKey > 0 ? 'store-and-network' : 'store-or-network' });
  const { traces, traceMetrics: metrics, traceSeries } = data;
  const figures: [string, string][] = [
    ['Traces', formatCount(metrics.count)],
    ['Error rate', formatPercent(metrics.errorRate)],
    ['Cost', formatCost(metrics.cost)],
    ['Tokens', formatCount(metrics.totalTokens)],
    ['Latency p50', formatDuration(metrics.latency.p50)],
    ['p95', formatDuration(metrics.latency.p95)],
    ['p99', formatDuration(metrics.latency.p99)],
  ];
  return (
    <>
      <Figures figures={figures} label="Over the filter" />
      <SeriesChart buckets={traceSeries} />
      {traces.edges.length === 0 ? (
        <Empty title="No traces match">
          {metrics.count === 0 && stateSearch(state) === '' ? 'Send traces with OpenTelemetry to /v1/traces (docs/observability.md).' : 'Try other filters.'}
        </Empty>
      ) : (
        <table className="traces">
          <caption className="visually-hidden">Traces, sorted by {state.sort.toLowerCase().replace('_', ' ')}</caption>
          <thead>
            <tr>
              {columns.map(({ field, label, numeric }) => (
                <th
                  key={label}
                  scope="col"
                  className={numeric ? 'numeric' : undefined}
                  aria-sort={field && state.sort === field ? (state.direction === 'ASC' ? 'ascending' : 'descending') : undefined}
                >
                  {field ? (
                    <button type="button" className="sort" onClick={() => apply(sortedBy(state, field))}>
                      {label}
                      <span aria-hidden="true">{state.sort === field ? (state.direction === 'ASC' ? ' ▲' : ' ▼') : ''}</span>
                    </button>
                  ) : (
                    label
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {traces.edges.map(({ node }) => (
              <tr key={node.id} className={node.errorCount > 0 ? 'failed' : undefined}>
                <td>
                  <Link to={paths.trace(projectId, node.traceId)}>{node.name ?? node.traceId}</Link>
                  <span className="muted small">
                    {' '}
                    {node.spanKind ?? ''} {node.environment ? `· ${node.environment}` : ''} {node.userId ? `· ${node.userId}` : ''}
                  </span>
                </td>
                <td>{formatTime(node.startTime)}</td>
                <td className="numeric">{formatDuration(node.latency)}</td>
                <td className="numeric">{formatCount(node.spanCount)}</td>
                <td className="numeric">{node.errorCount > 0 ? <span className="badge error">{node.errorCount}</span> : '0'}</td>
                <td className="numeric">{formatCount(node.tokens.totalTokens)}</td>
                <td className="numeric">{formatCost(node.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav className="pager" aria-label="Pages">
        <button
          type="button"
          disabled={!traces.pageInfo.hasPreviousPage || !traces.pageInfo.startCursor}
          onClick={() => apply({ ...state, after: null, before: traces.pageInfo.startCursor ?? null })}
        >
          Previous page
        </button>
        <button
          type="button"
          disabled={!traces.pageInfo.hasNextPage || !traces.pageInfo.endCursor}
          onClick={() => apply({ ...state, before: null, after: traces.pageInfo.endCursor ?? null })}
        >
          Next page
        </button>
      </nav>
    </>
  );
}

/** Refreshes the list (throttled) when ingestion stores traces; tells when it is live. */
function useLiveRefresh(onStored: () => void): boolean {
  const [live, setLive] = useState(false);
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const stored = useRef(onStored);
  stored.current = onStored;
  useEffect(() => () => clearTimeout(timer.current ?? undefined), []);
  const onNext = useCallback((response: TraceListSubscription['response'] | null | undefined) => {
    setLive(true);
    if (!response?.tracesStored.length || timer.current) return;
    const wait = Math.max(0, last.current + REFRESH_MS - Date.now());
    timer.current = setTimeout(() => {
      timer.current = null;
      last.current = Date.now();
      stored.current();
    }, wait);
  }, []);
  const config = useMemo<GraphQLSubscriptionConfig<TraceListSubscription>>(
    () => ({ subscription, variables: {}, onNext, onError: () => setLive(false), onCompleted: () => setLive(false) }),
    [onNext],
  );
  useSubscription(config);
  return live;
}

export function TraceList({ projectId }: { projectId: string }) {
  const { location, navigate } = useRouter();
  const state = useMemo(() => parseState(location.search), [location.search]);
  const [fetchKey, setFetchKey] = useState(0);
  const apply = (next: TraceListState) => navigate(paths.traces(projectId, stateSearch(next)));
  const [newTraces, setNewTraces] = useState(false);
  // The first page follows ingestion; on a later page a notice offers to reload instead, so rows
  // do not move under the reader.
  const onFirstPage = !state.after && !state.before;
  const live = useLiveRefresh(() => {
    if (onFirstPage) startTransition(() => setFetchKey((key) => key + 1));
    else setNewTraces(true);
  });
  useEffect(() => setNewTraces(false), [location.search]);
  return (
    <div className="trace-list">
      <div className="screen-head">
        <h1>Traces</h1>
        <span className={`live ${live ? 'on' : ''}`} role="status">
          {live ? 'Live' : 'Not live'}
        </span>
      </div>
      <Filters state={state} apply={apply} />
      {newTraces && (
        <p className="notice" role="status">
          New traces arrived.{' '}
          <button type="button" className="link-button" onClick={() => apply({ ...state, after: null, before: null })}>
            Show the newest
          </button>
        </p>
      )}
      <ErrorBoundary resetKey={location.search} onRetry={() => setFetchKey((key) => key + 1)}>
        <Suspense fallback={<Loading label="Loading traces…" />}>
          <Results projectId={projectId} state={state} fetchKey={fetchKey} apply={apply} />
        </Suspense>
      </ErrorBoundary>
    </div>
  );
}
