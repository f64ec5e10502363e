// A trace (docs/ui.md#the-trace-page): its sums, the span tree with its waterfall from the light
// `outline`, and the selected span's details, loaded on demand. The selection is in the URL, and
// the route preloads the selected span's details with the trace (entrypoints.ts).
import { Suspense, useCallback, useMemo, useState } from 'react';
import { graphql, useFragment, usePreloadedQuery, useQueryLoader, type PreloadedQuery } from 'react-relay';
import type { ScoreConfigChoices_query$key } from '../__generated__/ScoreConfigChoices_query.graphql.ts';
import type { SpanDetailsQuery } from '../__generated__/SpanDetailsQuery.graphql.ts';
import type { TracePageHead_trace$key } from '../__generated__/TracePageHead_trace.graphql.ts';
import type { TracePageQuery, TracePageQuery$data } from '../__generated__/TracePageQuery.graphql.ts';
import { Empty, ErrorBoundary, Figures, Loading } from '../components/states.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import { formatCost, formatCount, formatDuration, formatTime } from '../format.ts';
import { Link, paths, useRouter, type RouteOf } from '../router.tsx';
import type { TracePageQueries } from './entrypoints.ts';
import { ScorePanel } from '../scores/ScorePanel.tsx';
import { scoresBySpan, useScoreConfigs, useTraceScores } from '../scores/traceScores.ts';
import { buildTree, type SpanTree as Tree } from './outline.ts';
import { SpanDetails, spanDetailsQuery } from './SpanDetails.tsx';
import { SpanTree } from './SpanTree.tsx';
import { AddToTestsetPanel } from '../testsets/AddToTestsetPanel.tsx';

const query = graphql`
  query TracePageQuery($traceId: String!) {
    ...ScoreConfigChoices_query
    trace(traceId: $traceId) {
      traceId
      ...TracePageHead_trace
      ...TraceScores_trace
      outline {
        spanIds
        parents
        names
        kinds
        statuses
        offsets
        latencies
      }
    }
  }
`;

// The trace's name and sums above its tree.
const headFragment = graphql`
  fragment TracePageHead_trace on Trace {
    traceId
    name
    status
    startTime
    latency
    spanCount
    errorCount
    cost
    userId
    sessionId
    environment
    tokens {
      totalTokens
    }
  }
`;

function TraceHead({ projectId, trace: traceRef }: { projectId: string; trace: TracePageHead_trace$key }) {
  const trace = useFragment(headFragment, traceRef);
  const figures: [string, string][] = [
    ['Started', formatTime(trace.startTime)],
    ['Latency', formatDuration(trace.latency)],
    ['Spans', formatCount(trace.spanCount)],
    ['Errors', formatCount(trace.errorCount)],
    ['Tokens', formatCount(trace.tokens.totalTokens)],
    ['Cost', formatCost(trace.cost)],
    ...(trace.environment ? ([['Environment', trace.environment]] as [string, string][]) : []),
    ...(trace.userId ? ([['User', trace.userId]] as [string, string][]) : []),
  ];
  return (
    <>
      <h1>
        {trace.name ?? trace.traceId}
        {trace.status === 'ERROR' && <span className="badge error">failed</span>}
      </h1>
      <Figures figures={figures} />
      {trace.sessionId && (
        <p>
          A turn of the session <Link to={paths.session(projectId, trace.sessionId)}>{trace.sessionId}</Link>
        </p>
      )}
    </>
  );
}

export function TracePage({ route: { projectId, traceId, spanId }, queries }: ScreenProps<RouteOf<'trace'>, TracePageQueries>) {
  const { navigate } = useRouter();
  const data = usePreloadedQuery<TracePageQuery>(query, queries.trace);
  const { trace } = data;
  // The span the route preloaded; "Try again" asks the API anew (a failed query stays failed).
  const [span, loadSpan] = useQueryLoader<SpanDetailsQuery>(spanDetailsQuery, queries.span);
  const tree = useMemo(() => (trace ? buildTree(trace.outline) : null), [trace]);
  const selected = tree && spanId !== null ? (tree.indexOf.get(spanId) ?? null) : null;
  const select = useCallback(
    (span: number) => trace && navigate(paths.trace(projectId, traceId, trace.outline.spanIds[span]), { replace: true }),
    [navigate, projectId, traceId, trace],
  );
  if (!trace || !tree) {
    return (
      <Empty title="No such trace">
        <p>
          No trace <code>{traceId}</code> in this project. <Link to={paths.traces(projectId)}>Back to the traces</Link>
        </p>
      </Empty>
    );
  }
  const selectedId = selected !== null ? trace.outline.spanIds[selected] : null;
  return (
    <TraceView
      projectId={projectId}
      trace={trace}
      configs={data}
      tree={tree}
      selected={selected}
      select={select}
      selectedId={selectedId}
      span={span}
      retrySpan={() => span && loadSpan(span.variables, { fetchPolicy: 'network-only' })}
    />
  );
}

function TraceView({
  projectId,
  trace,
  configs: configsKey,
  tree,
  selected,
  select,
  selectedId,
  span,
  retrySpan,
}: {
  projectId: string;
  trace: NonNullable<TracePageQuery$data['trace']>;
  configs: ScoreConfigChoices_query$key;
  tree: Tree;
  selected: number | null;
  select: (span: number) => void;
  selectedId: string | null;
  span: PreloadedQuery<SpanDetailsQuery> | null | undefined;
  retrySpan: () => void;
}) {
  const configs = useScoreConfigs(configsKey);
  const { scores, write, remove } = useTraceScores(trace, trace.traceId);
  // One panel has the keys (keys.ts): the trace's, or the selected span's.
  const [keysOn, setKeysOn] = useState<'trace' | 'span'>('trace');
  // The test sets are read only once the form is opened.
  const keysAt = selectedId === null ? 'trace' : keysOn;
  const spanScores = useMemo(() => scoresBySpan(scores, tree.indexOf), [scores, tree]);
  const panel = (target: 'trace' | 'span') => ({
    configs,
    keysActive: keysAt === target,
    onTakeKeys: () => setKeysOn(target),
    onSwitch: () => setKeysOn(target === 'trace' ? 'span' : 'trace'),
    onDelete: remove,
  });
  return (
    <div className="trace-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to={paths.traces(projectId)}>Traces</Link> / <span aria-current="page">{trace.traceId}</span>
      </nav>
      <TraceHead projectId={projectId} trace={trace} />
      <ScorePanel {...panel('trace')} target="this trace" scores={scores.filter((score) => score.spanId === null)} onWrite={(score) => write(score, null)} />
      <AddToTestsetPanel
        projectId={projectId}
        selection={selectedId ? { spans: [{ traceId: trace.traceId, spanId: selectedId }] } : { traceIds: [trace.traceId] }}
      />
      <div className="trace-body">
        <SpanTree outline={trace.outline} tree={tree} selected={selected} onSelect={select} scores={spanScores} />
        <section className="details-pane" aria-label="Selected span">
          {selectedId === null || !span ? (
            <Empty title="Select a span">Its inputs, outputs and attributes show here.</Empty>
          ) : (
            <>
              <ScorePanel
                key={selectedId}
                {...panel('span')}
                target={`span ${trace.outline.names[selected!]}`}
                scores={scores.filter((score) => score.spanId === selectedId)}
                onWrite={(score) => write(score, selectedId)}
              />
              <ErrorBoundary resetKey={selectedId} onRetry={retrySpan}>
                <Suspense fallback={<Loading label="Loading the span…" />}>
                  <SpanDetails query={span} />
                </Suspense>
              </ErrorBoundary>
            </>
          )}
        </section>
      </div>
    </div>
  );
}
