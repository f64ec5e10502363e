// A trace (docs/ui.md#the-trace-page): its sums, the span tree with its waterfall from the light
// `outline`, and the selected span's details, loaded on demand. The selection is in the URL.
import { Suspense, useCallback, useMemo } from 'react';
import { graphql, useLazyLoadQuery } from 'react-relay';
import type { TracePageQuery } from '../__generated__/TracePageQuery.graphql.ts';
import { formatCost, formatCount, formatDuration, formatTime } from '../format.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, ErrorBoundary, Figures, Loading } from '../components/states.tsx';
import { buildTree } from './outline.ts';
import { SpanDetails } from './SpanDetails.tsx';
import { SpanTree } from './SpanTree.tsx';

const query = graphql`
  query TracePageQuery($traceId: String!) {
    trace(traceId: $traceId) {
      ...traceSummaryFields @relay(mask: false)
      sessionId
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

interface Props {
  projectId: string;
  traceId: string;
  spanId: string | null;
}

export function TracePage({ projectId, traceId, spanId }: Props) {
  const { navigate } = useRouter();
  const { trace } = useLazyLoadQuery<TracePageQuery>(query, { traceId });
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
  const figures: [string, string][] = [
    ['Started', formatTime(trace.startTime)],
    ['Latency', formatDuration(trace.latency)],
    ['Spans', formatCount(trace.spanCount)],
    ['Errors', formatCount(trace.errorCount)],
    ['Tokens', formatCount(trace.tokens.totalTokens)],
    ['Cost', formatCost(trace.cost)],
    ...(trace.environment ? ([['Environment', trace.environment]] as [string, string][]) : []),
    ...(trace.userId ? ([['User', trace.userId]] as [string, string][]) : []),
    ...(trace.sessionId ? ([['Session', trace.sessionId]] as [string, string][]) : []),
  ];
  const selectedId = selected !== null ? trace.outline.spanIds[selected] : null;
  return (
    <div className="trace-page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to={paths.traces(projectId)}>Traces</Link> / <span aria-current="page">{trace.traceId}</span>
      </nav>
      <h1>
        {trace.name ?? trace.traceId}
        {trace.status === 'ERROR' && <span className="badge error">failed</span>}
      </h1>
      <Figures figures={figures} />
      <div className="trace-body">
        <SpanTree outline={trace.outline} tree={tree} selected={selected} onSelect={select} />
        <section className="details-pane" aria-label="Selected span">
          {selectedId === null ? (
            <Empty title="Select a span">Its inputs, outputs and attributes show here.</Empty>
          ) : (
            <ErrorBoundary resetKey={selectedId}>
              <Suspense fallback={<Loading label="Loading the span…" />}>
                <SpanDetails traceId={trace.traceId} spanId={selectedId} />
              </Suspense>
            </ErrorBoundary>
          )}
        </section>
      </div>
    </div>
  );
}
