// What a review shows of an item (docs/annotation-queues.md#in-the-ui), as its own page shows it: a
// trace's head, span tree and the selected span's details (a span item selects its span); a
// session's page; an evaluation result's case, output and expected answer, then its trace. The
// trace page's score panels are left out: the review's own panel has the keys.
import { Suspense, useEffect, useMemo, useState } from 'react';
import { graphql, useLazyLoadQuery, useQueryLoader } from 'react-relay';
import type { ReviewScenarioQuery } from '../__generated__/ReviewScenarioQuery.graphql.ts';
import type { ReviewTraceQuery } from '../__generated__/ReviewTraceQuery.graphql.ts';
import type { SessionPageQuery } from '../__generated__/SessionPageQuery.graphql.ts';
import SessionPageQueryNode from '../__generated__/SessionPageQuery.graphql.ts';
import type { SpanDetailsQuery } from '../__generated__/SpanDetailsQuery.graphql.ts';
import { Empty, ErrorBoundary, Loading } from '../components/states.tsx';
import { ContentView } from '../observability/content.tsx';
import { buildTree } from '../observability/outline.ts';
import { SessionPage } from '../observability/SessionPage.tsx';
import { SpanDetails, spanDetailsQuery } from '../observability/SpanDetails.tsx';
import { SpanTree } from '../observability/SpanTree.tsx';
import { TraceHead } from '../observability/TracePage.tsx';
import { globalIdOf } from '../ids.ts';
import { Link, paths } from '../router.tsx';

const traceQuery = graphql`
  query ReviewTraceQuery($traceId: String!) {
    trace(traceId: $traceId) {
      traceId
      ...TracePageHead_trace
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

const scenarioQuery = graphql`
  query ReviewScenarioQuery($id: ID!) {
    node(id: $id) {
      ... on EvaluationScenario {
        position
        inputs
        correctAnswers
        traceId
        outputs {
          result {
            type
            value
          }
        }
      }
    }
  }
`;

export function TraceTarget({ projectId, traceId, spanId }: { projectId: string; traceId: string; spanId: string | null }) {
  const { trace } = useLazyLoadQuery<ReviewTraceQuery>(traceQuery, { traceId });
  const tree = useMemo(() => (trace ? buildTree(trace.outline) : null), [trace]);
  const [chosen, setChosen] = useState<string | null>(spanId);
  const [span, loadSpan] = useQueryLoader<SpanDetailsQuery>(spanDetailsQuery);
  const rootId = trace?.outline.spanIds[tree?.roots[0] ?? 0] ?? null;
  const selectedId = chosen ?? rootId;
  useEffect(() => {
    if (selectedId) loadSpan({ traceId, spanId: selectedId });
  }, [traceId, selectedId, loadSpan]);
  if (!trace || !tree) return <Empty title="This trace is no longer stored">Its item can still be completed or removed.</Empty>;
  const selected = selectedId !== null ? (tree.indexOf.get(selectedId) ?? null) : null;
  return (
    <div className="trace-page review-target">
      <TraceHead projectId={projectId} trace={trace} />
      <p className="small">
        <Link to={paths.trace(projectId, traceId, spanId)}>Open the trace page</Link>
      </p>
      <div className="trace-body">
        <SpanTree outline={trace.outline} tree={tree} selected={selected} onSelect={(index) => setChosen(trace.outline.spanIds[index])} />
        <section className="details-pane" aria-label="Selected span">
          {span ? (
            <ErrorBoundary resetKey={selectedId}>
              <Suspense fallback={<Loading label="Loading the span…" />}>
                <SpanDetails query={span} />
              </Suspense>
            </ErrorBoundary>
          ) : (
            <Empty title="Select a span">Its inputs, outputs and attributes show here.</Empty>
          )}
        </section>
      </div>
    </div>
  );
}

export function SessionTarget({ projectId, sessionId }: { projectId: string; sessionId: string }) {
  const [session, loadSession] = useQueryLoader<SessionPageQuery>(SessionPageQueryNode);
  useEffect(() => loadSession({ sessionId }), [sessionId, loadSession]);
  if (!session) return <Loading label="Loading the session…" />;
  return <SessionPage route={{ screen: 'session', projectId, sessionId }} queries={{ session }} />;
}

export function ScenarioTarget({ projectId, scenarioId }: { projectId: string; scenarioId: string }) {
  const { node } = useLazyLoadQuery<ReviewScenarioQuery>(scenarioQuery, { id: globalIdOf('EvaluationScenario', scenarioId) });
  if (!node || node.position === undefined) return <Empty title="This evaluation result is no longer stored" />;
  return (
    <div className="review-target">
      <h2>Test case {node.position + 1}</h2>
      <div className="review-scenario">
        <section aria-label="Inputs">
          <h3>Inputs</h3>
          <ContentView value={node.inputs} />
        </section>
        <section aria-label="Output">
          <h3>Output</h3>
          {node.outputs?.map((output, index) => (
            <ContentView key={index} value={output.result.value} />
          ))}
        </section>
        <section aria-label="Expected answer">
          <h3>Expected answer</h3>
          <ContentView value={node.correctAnswers} />
        </section>
      </div>
      {node.traceId && (
        <ErrorBoundary>
          <Suspense fallback={<Loading label="Loading its trace…" />}>
            <TraceTarget projectId={projectId} traceId={node.traceId} spanId={null} />
          </Suspense>
        </ErrorBoundary>
      )}
    </div>
  );
}
