// An evaluation's results (docs/ui.md#the-results-table) through a pagination fragment over its
// scenarios: the first page comes with the page's query, the next ones as the reader scrolls near
// the last row loaded; the aggregates are the API's, so the table needs no more rows than are seen.
import { startTransition, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { graphql, usePaginationFragment } from 'react-relay';
import type { EvaluationResults_evaluation$data, EvaluationResults_evaluation$key } from '../__generated__/EvaluationResults_evaluation.graphql.ts';
import type { EvaluationResultsPaginationQuery } from '../__generated__/EvaluationResultsPaginationQuery.graphql.ts';
import { PAGE_SIZE } from '../connections.ts';
import { AddToQueue } from '../annotation-queues/AddToQueue.tsx';
import { Empty, ErrorMessage } from '../components/states.tsx';
import { readOutcome, type Outcome } from './outcome.ts';
import { ResultsTable, type ConfigColumn } from './ResultsTable.tsx';

const fragment = graphql`
  fragment EvaluationResults_evaluation on Evaluation
  @refetchable(queryName: "EvaluationResultsPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    scenarios(first: $count, after: $cursor) @connection(key: "EvaluationResults_scenarios") {
      edges {
        node {
          id
          databaseId
          position
          inputs
          correctAnswers
          ...outcome_scenario
        }
      }
    }
  }
`;

type Node = EvaluationResults_evaluation$data['scenarios']['edges'][number]['node'];

/** A case as the results table shows it: the test case and what the evaluation made of it. */
export type Scenario = Outcome & Pick<Node, 'position' | 'inputs' | 'correctAnswers'>;

export function EvaluationResults({
  evaluation,
  total,
  configs,
  projectId,
  version,
  running,
}: {
  evaluation: EvaluationResults_evaluation$key;
  /** Cases in the evaluation, loaded or not. */
  total: number;
  configs: readonly ConfigColumn[];
  projectId: string;
  /** Each change reads the first page anew (while a run stores cases, and at its end). */
  version: number;
  /** The run goes on: a reader who loaded more than the first page keeps their rows until its end. */
  running: boolean;
}) {
  const { data, hasNext, isLoadingNext, loadNext, refetch } = usePaginationFragment<EvaluationResultsPaginationQuery, EvaluationResults_evaluation$key>(
    fragment,
    evaluation,
  );
  const [failure, setFailure] = useState<Error | null>(null);
  const loaded = data.scenarios.edges.length;
  const beyondFirstPage = useRef(false);
  beyondFirstPage.current = loaded > PAGE_SIZE;
  useEffect(() => {
    // Reading anew brings the first page alone, so while the run goes on it is skipped for a reader
    // further down; in a transition, so the rows loaded stay on screen until the new ones arrive.
    if (version > 0 && !(running && beyondFirstPage.current)) startTransition(() => void refetch({}, { fetchPolicy: 'network-only' }));
  }, [version, running, refetch]);
  const loadMore = useCallback(() => {
    if (hasNext && !isLoadingNext) loadNext(PAGE_SIZE, { onComplete: (error) => error && setFailure(error) });
  }, [hasNext, isLoadingNext, loadNext]);
  const rows = useMemo(
    () =>
      data.scenarios.edges.map(({ node }): Scenario => ({
        ...readOutcome(node),
        position: node.position,
        inputs: node.inputs,
        correctAnswers: node.correctAnswers,
      })),
    [data.scenarios.edges],
  );
  if (rows.length === 0) return <Empty title="No case stored yet">Results appear here as the run stores them.</Empty>;
  const failed = data.scenarios.edges.filter((_, index) => rows[index].outputs[0]?.result.type === 'error');
  const target = (edges: typeof data.scenarios.edges) => edges.map(({ node }) => ({ targetId: node.databaseId }));
  return (
    <>
      <AddToQueue
        projectId={projectId}
        sources={[
          { label: `the ${loaded} results loaded`, type: 'EVALUATION_SCENARIO', targets: target(data.scenarios.edges) },
          ...(failed.length > 0 ? [{ label: `the ${failed.length} failed results`, type: 'EVALUATION_SCENARIO' as const, targets: target(failed) }] : []),
        ]}
      />
      {failure !== null && (
        <ErrorMessage
          error={failure}
          retry={() => {
            setFailure(null);
            loadMore();
          }}
        />
      )}
      <ResultsTable rows={rows} total={Math.max(total, rows.length)} configs={configs} projectId={projectId} onNearEnd={failure ? undefined : loadMore} />
    </>
  );
}
