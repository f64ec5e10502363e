// The trace list (docs/ui.md#the-trace-list): the API's filters in a form, metrics and a chart over
// the filter, a sortable table a page at a time, refreshed live as ingestion stores traces.
import { startTransition, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { graphql, useFragment, usePreloadedQuery, useQueryLoader, useSubscription, type PreloadedQuery } from 'react-relay';
import type { GraphQLSubscriptionConfig } from 'relay-runtime';
import type { TraceListFigures_query$key } from '../__generated__/TraceListFigures_query.graphql.ts';
import type { TraceListQuery } from '../__generated__/TraceListQuery.graphql.ts';
import type { TraceListRow_trace$key } from '../__generated__/TraceListRow_trace.graphql.ts';
import type { TraceListSubscription } from '../__generated__/TraceListSubscription.graphql.ts';
import type { TraceListTable_query$key } from '../__generated__/TraceListTable_query.graphql.ts';
import { Empty, ErrorBoundary, Figures, Loading } from '../components/states.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import { formatCost, formatCount, formatDuration, formatPercent, formatTime } from '../format.ts';
import { Link, paths, useRouter, type RouteOf } from '../router.tsx';
import type { TraceListQueries } from './entrypoints.ts';
import { filterVariables, parseState, scoreColumns, sortedBy, stateSearch, withoutColumn, type SortField, type TraceListState } from './filters.ts';
import { AddToQueue, type QueueSource } from '../annotation-queues/AddToQueue.tsx';
import { columnText, ScoreNameOptions, summaryFigure } from '../scores/columns.tsx';
import { CursorPager } from './ListControls.tsx';
import { TraceFilters } from './TraceFilters.tsx';
import { SeriesChart } from './SeriesChart.tsx';
import { SelectBox, useSelection, type Selection } from '../components/selection.tsx';
import { AddToTestsetPanel } from '../testsets/AddToTestsetPanel.tsx';

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
    $attributes: [AttributeFilter!]
    $scores: [ScoreFilter!]
    $chartScores: [String!]
  ) {
    ...TraceListFigures_query
    ...TraceListTable_query
    ...ScoreConfigChoices_query
  }
`;

// The metrics and the chart over the filter (the query's filter variables).
const figuresFragment = graphql`
  fragment TraceListFigures_query on Query {
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
      attributes: $attributes
      scores: $scores
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
      scoreNames: $chartScores
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
      attributes: $attributes
      scores: $scores
    ) {
      ...SeriesChart_buckets
    }
    scoreSummary(
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
      attributes: $attributes
      scores: $scores
    ) {
      name
      dataType
      count
      mean
      interval {
        low
        high
      }
      labels {
        label
        share
      }
    }
  }
`;

// A page of the table, by cursor.
const tableFragment = graphql`
  fragment TraceListTable_query on Query {
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
      attributes: $attributes
      scores: $scores
    ) {
      edges {
        node {
          id
          scoreValues {
            name
          }
          ...TraceListRow_trace
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
  fragment TraceListRow_trace on Trace {
    traceId
    name
    startTime
    latency
    spanCount
    errorCount
    cost
    userId
    environment
    spanKind
    tokens {
      totalTokens
    }
    scoreValues {
      name
      dataType
      count
      mean
      stringValue
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

/** The metrics over the filter and traces over time. */
function TraceFigures({ query: queryRef, scoreName, state }: { query: TraceListFigures_query$key; scoreName: string | null; state: TraceListState }) {
  const { traceMetrics: metrics, traceSeries, scoreSummary } = useFragment(figuresFragment, queryRef);
  // Every name's summary but the hidden columns'.
  const shown = scoreColumns(
    state,
    scoreSummary.map((summary) => summary.name),
  );
  const summaries = scoreSummary.filter((summary) => shown.includes(summary.name));
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
      {summaries.length > 0 && <Figures figures={summaries.map(summaryFigure)} label="Scores over the filter" />}
      <SeriesChart buckets={traceSeries} scoreName={scoreName} />
    </>
  );
}

function TraceRow({
  projectId,
  trace: traceRef,
  scoreNames,
  selection,
}: {
  projectId: string;
  trace: TraceListRow_trace$key;
  scoreNames: readonly string[];
  selection: Selection;
}) {
  const node = useFragment(rowFragment, traceRef);
  return (
    <tr className={node.errorCount > 0 ? 'failed' : undefined}>
      <td>
        <SelectBox selection={selection} id={node.traceId} label={`Select trace ${node.name ?? node.traceId}`} />
      </td>
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
      {scoreNames.map((name) => (
        <td key={name} className="score-cell">
          {columnText(node.scoreValues?.find((value) => value.name === name))}
        </td>
      ))}
    </tr>
  );
}

interface TableProps {
  projectId: string;
  state: TraceListState;
  apply: (next: TraceListState) => void;
  query: TraceListTable_query$key;
}

/** The sortable table, a page at a time by cursor (the cursors in the URL). */
function TraceTable({ projectId, state, apply, query: queryRef }: TableProps) {
  const { traces } = useFragment(tableFragment, queryRef);
  // A column per score name the page's traces have, by default; the user hides some.
  const scoreNames = scoreColumns(
    state,
    traces.edges.flatMap(({ node }) => node.scoreValues.map((value) => value.name)),
  );
  const selection = useSelection();
  const sources: QueueSource[] = [
    ...(selection.ids.length > 0
      ? [
          {
            label: `the ${selection.ids.length} selected trace${selection.ids.length === 1 ? '' : 's'}`,
            type: 'TRACE' as const,
            targets: selection.ids.map((targetId) => ({ targetId })),
          },
        ]
      : []),
    { label: 'the traces matching the filter', type: 'TRACE', filter: filterVariables(state, Date.now()) },
  ];
  return (
    <>
      <div className="list-actions">
        <AddToQueue projectId={projectId} sources={sources} />
      </div>
      <AddToTestsetPanel
        projectId={projectId}
        selection={selection.ids.length > 0 ? { traceIds: selection.ids } : null}
        label={`Add ${selection.ids.length} selected to a test set`}
      />
      {traces.edges.length === 0 ? (
        <Empty title="No traces match">
          {/* No filter and no cursor: the first page of every trace is empty, so there is none. */}
          {stateSearch(state) === '' ? 'Send traces with OpenTelemetry to /v1/traces (docs/observability.md).' : 'Try other filters.'}
        </Empty>
      ) : (
        <table className="traces">
          <caption className="visually-hidden">Traces, sorted by {state.sort.toLowerCase().replace('_', ' ')}</caption>
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Selected</span>
              </th>
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
              {scoreNames.map((name) => (
                <th key={`score-${name}`} scope="col" className="score-cell">
                  <span className="visually-hidden">Score </span>
                  {name}
                  <button type="button" className="link-button" aria-label={`Hide column ${name}`} onClick={() => apply(withoutColumn(state, name))}>
                    <span aria-hidden="true"> ×</span>
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {traces.edges.map(({ node }) => (
              <TraceRow key={node.id} projectId={projectId} trace={node} scoreNames={scoreNames} selection={selection} />
            ))}
          </tbody>
        </table>
      )}
      {state.hidden.length > 0 && (
        <p className="muted small">
          Hidden score columns: {state.hidden.join(', ')}.{' '}
          <button type="button" className="link-button" onClick={() => apply({ ...state, hidden: [] })}>
            Show them
          </button>
        </p>
      )}
      <CursorPager pageInfo={traces.pageInfo} onPage={(cursors) => apply({ ...state, ...cursors })} />
    </>
  );
}

/** The list's data: read from the query the route preloaded (or its live reload). */
function Results({ list, ...table }: Omit<TableProps, 'query'> & { list: PreloadedQuery<TraceListQuery> }) {
  const data = usePreloadedQuery<TraceListQuery>(query, list);
  return (
    <>
      <ScoreNameOptions query={data} />
      <TraceFigures query={data} scoreName={table.state.chart.trim() || null} state={table.state} />
      <TraceTable {...table} query={data} />
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

export function TraceList({ route: { projectId }, queries }: ScreenProps<RouteOf<'traces'>, TraceListQueries>) {
  const { location, navigate } = useRouter();
  const state = useMemo(() => parseState(location.search), [location.search]);
  const [list, loadList] = useQueryLoader<TraceListQuery>(query, queries.list);
  // The same variables (a relative range keeps its start), from the API rather than the store; not
  // when the URL has moved on since this render (a refresh timed out during a navigation), which
  // would load the old filter's list over the one the new URL preloaded.
  const reload = () => {
    if (list && location.search === window.location.search) loadList(list.variables, { fetchPolicy: 'network-only' });
  };
  const apply = (next: TraceListState) => navigate(paths.traces(projectId, stateSearch(next)));
  const [newTraces, setNewTraces] = useState(false);
  // The first page follows ingestion; on a later page a notice offers to reload instead, so rows
  // do not move under the reader.
  const onFirstPage = !state.after && !state.before;
  const live = useLiveRefresh(() => {
    if (onFirstPage) startTransition(reload);
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
      <TraceFilters state={state} apply={apply} />
      {newTraces && (
        <p className="notice" role="status">
          New traces arrived.{' '}
          <button type="button" className="link-button" onClick={() => apply({ ...state, after: null, before: null })}>
            Show the newest
          </button>
        </p>
      )}
      <ErrorBoundary resetKey={location.search} onRetry={reload}>
        <Suspense fallback={<Loading label="Loading traces…" />}>{list && <Results projectId={projectId} state={state} apply={apply} list={list} />}</Suspense>
      </ErrorBoundary>
    </div>
  );
}
