// One evaluation (docs/ui.md#an-evaluation): its status and progress, followed live through the
// `evaluationProgress` subscription (SSE on /graphql/stream); once it ends, the aggregates with
// their 95% intervals as the API computes them, costs and latency; and the results table.
import { startTransition, useMemo, useRef, useState } from 'react';
import { graphql, useFragment, useMutation, usePreloadedQuery, useRefetchableFragment, useSubscription } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { EvaluationPageQueries } from './entrypoints.ts';
import type { GraphQLSubscriptionConfig } from 'relay-runtime';
import type { EvaluationResults_evaluation$key } from '../__generated__/EvaluationResults_evaluation.graphql.ts';
import type { EvaluationPage_evaluation$key } from '../__generated__/EvaluationPage_evaluation.graphql.ts';
import type {
  EvaluationPageAggregates_evaluation$data,
  EvaluationPageAggregates_evaluation$key,
} from '../__generated__/EvaluationPageAggregates_evaluation.graphql.ts';
import type { EvaluationPageCancelMutation } from '../__generated__/EvaluationPageCancelMutation.graphql.ts';
import type { EvaluationPageQuery } from '../__generated__/EvaluationPageQuery.graphql.ts';
import type { EvaluationPageRefetchQuery } from '../__generated__/EvaluationPageRefetchQuery.graphql.ts';
import type { EvaluationPageSubscription, EvaluationPageSubscription$data } from '../__generated__/EvaluationPageSubscription.graphql.ts';
import { formatCost, formatDuration, formatPercent, formatTime } from '../format.ts';
import { Link, paths } from '../router.tsx';
import { Empty, HeadRow } from '../components/states.tsx';
import { EvaluationResults } from './EvaluationResults.tsx';
import { finalStatuses, resultText, statusLabel } from './results.ts';
import './evaluations.css';

const query = graphql`
  query EvaluationPageQuery($id: ID!) {
    evaluation(id: $id) {
      ...EvaluationPage_evaluation
      ...EvaluationResults_evaluation
    }
  }
`;

// What the page shows above the table; read anew (refetched by its id) when the run ends.
const evaluationFragment = graphql`
  fragment EvaluationPage_evaluation on Evaluation @refetchable(queryName: "EvaluationPageRefetchQuery") {
    id
    databaseId
    variantNames
    revisions
    testsetName
    createdAt
    status {
      value
      error {
        message
      }
    }
    progress {
      done
      total
      errors
      status
    }
    averageCost {
      type
      value
    }
    totalCost {
      type
      value
    }
    averageLatency {
      type
      value
    }
    evaluatorCost {
      calls
      totalCost
    }
    # The table's columns, named from the start (aggregates name them only once the run ends).
    evaluatorConfigs {
      id
      name
    }
    ...EvaluationPageAggregates_evaluation
  }
`;

const aggregatesFragment = graphql`
  fragment EvaluationPageAggregates_evaluation on Evaluation {
    aggregatedResults {
      evaluatorConfig {
        id
        name
        evaluatorKey
        evaluator {
          resultType
        }
      }
      result {
        type
        value
        error {
          message
        }
      }
      confidenceInterval {
        low
        high
      }
      count
      errors
      stddev
    }
  }
`;

const subscription = graphql`
  subscription EvaluationPageSubscription($id: ID!) {
    evaluationProgress(id: $id) {
      status
      done
      total
      errors
    }
  }
`;

const cancelMutation = graphql`
  mutation EvaluationPageCancelMutation($id: ID!) {
    cancelEvaluation(id: $id) {
      id
      status {
        value
      }
    }
  }
`;

/** While a run goes on, the table reloads at most this often. */
const RELOAD_MS = 1500;

type Progress = EvaluationPageSubscription$data['evaluationProgress'];
type Aggregate = EvaluationPageAggregates_evaluation$data['aggregatedResults'][number];

/** A mean as a pass rate (BOOL evaluators) or a number, with its interval in the same unit. */
function meanText(aggregate: Aggregate): { mean: string; interval: string } {
  const share = aggregate.evaluatorConfig.evaluator?.resultType === 'BOOL';
  const value = aggregate.result?.type === 'number' && typeof aggregate.result.value === 'number' ? aggregate.result.value : null;
  const show = (number: number) => (share ? formatPercent(number) : number.toFixed(3));
  const ci = aggregate.confidenceInterval;
  return {
    mean: value === null ? resultText(aggregate.result) || '–' : show(value),
    interval: ci ? `95% CI ${show(ci.low)} – ${show(ci.high)}` : 'no interval',
  };
}

function Aggregates({ evaluation }: { evaluation: EvaluationPageAggregates_evaluation$key }) {
  const aggregates = useFragment(aggregatesFragment, evaluation).aggregatedResults;
  if (aggregates.length === 0) return <p className="muted">The scores over every case appear when the run ends.</p>;
  return (
    <table className="traces aggregates">
      <caption>Scores over every case</caption>
      <HeadRow columns={['Evaluator config', 'Mean', '95% interval', 'Std. dev.', 'Scored', 'Errors']} numeric={['Mean', 'Std. dev.', 'Scored', 'Errors']} />
      <tbody>
        {aggregates.map((aggregate) => {
          const { mean, interval } = meanText(aggregate);
          return (
            <tr key={aggregate.evaluatorConfig.id}>
              <th scope="row">
                {aggregate.evaluatorConfig.name} <span className="muted small">{aggregate.evaluatorConfig.evaluatorKey}</span>
              </th>
              <td className="numeric">{mean}</td>
              <td>{interval}</td>
              <td className="numeric">{aggregate.stddev == null ? '–' : aggregate.stddev.toFixed(3)}</td>
              <td className="numeric">{aggregate.count ?? '–'}</td>
              <td className={`numeric${aggregate.errors ? ' error-text' : ''}`}>{aggregate.errors ?? '–'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Follows the run while it is mounted (only while the run goes on). */
function Follow({ config }: { config: GraphQLSubscriptionConfig<EvaluationPageSubscription> }) {
  useSubscription(config);
  return null;
}

function EvaluationView({ projectId, evaluation: key }: { projectId: string; evaluation: EvaluationPage_evaluation$key & EvaluationResults_evaluation$key }) {
  const [evaluation, refetch] = useRefetchableFragment<EvaluationPageRefetchQuery, EvaluationPage_evaluation$key>(evaluationFragment, key);
  const id = evaluation.id;
  const [live, setLive] = useState<Progress | null>(null);
  const [tableVersion, setTableVersion] = useState(0);
  const lastReload = useRef(0);
  const running = !finalStatuses.has(live?.status ?? String(evaluation.status.value));

  const config = useMemo<GraphQLSubscriptionConfig<EvaluationPageSubscription>>(
    () => ({
      subscription,
      variables: { id },
      onNext: (response) => {
        const progress = response?.evaluationProgress;
        if (!progress) return;
        setLive(progress);
        // The end: the aggregates, costs and the table, read anew.
        if (finalStatuses.has(progress.status)) {
          startTransition(() => void refetch({}, { fetchPolicy: 'network-only' }));
          setTableVersion((version) => version + 1);
        } else if (Date.now() - lastReload.current > RELOAD_MS) {
          lastReload.current = Date.now();
          setTableVersion((version) => version + 1);
        }
      },
      onError: () => setLive(null),
    }),
    [id, refetch],
  );
  const [cancel, cancelling] = useMutation<EvaluationPageCancelMutation>(cancelMutation);

  const progress = live ?? evaluation.progress;
  const status = live?.status ?? String(evaluation.status.value);
  return (
    <section aria-labelledby="evaluation-title" className="evaluation">
      {running && <Follow config={config} />}
      <p className="breadcrumb">
        <Link to={paths.evaluations(projectId)}>Evaluations</Link> / {evaluation.databaseId}
      </p>
      <div className="screen-head">
        <h1 id="evaluation-title">
          {evaluation.variantNames[0]} v{evaluation.revisions[0]} on {evaluation.testsetName ?? 'a deleted test set'}
        </h1>
        <span className={`live${running && live ? ' on' : ''}`}>{running ? (live ? 'Live' : 'Connecting…') : ''}</span>
      </div>
      <div className="progress-line">
        <span className={`status status-${status.toLowerCase()}`}>{statusLabel(status)}</span>
        <progress max={progress.total || 1} value={progress.done} aria-label="Cases run">
          {progress.done} of {progress.total}
        </progress>
        <span role="status" aria-live="polite">
          {progress.done} of {progress.total} cases{progress.errors > 0 ? `, ${progress.errors} with errors` : ''}
        </span>
        {running && (
          <button type="button" disabled={cancelling} onClick={() => cancel({ variables: { id } })}>
            Cancel the run
          </button>
        )}
      </div>
      {evaluation.status.error && <p className="error-text">{evaluation.status.error.message}</p>}
      <dl className="figures">
        <div>
          <dt>Created</dt>
          <dd>{formatTime(evaluation.createdAt)}</dd>
        </div>
        <div>
          <dt>Total cost</dt>
          <dd>{evaluation.totalCost?.type === 'cost' ? formatCost(evaluation.totalCost.value as number) : '–'}</dd>
        </div>
        <div>
          <dt>Cost per case</dt>
          <dd>{evaluation.averageCost?.type === 'cost' ? formatCost(evaluation.averageCost.value as number) : '–'}</dd>
        </div>
        <div>
          <dt>Mean latency</dt>
          <dd>{evaluation.averageLatency?.type === 'latency' ? formatDuration(evaluation.averageLatency.value as number) : '–'}</dd>
        </div>
        <div>
          <dt>Evaluators' own cost</dt>
          <dd>
            {formatCost(evaluation.evaluatorCost.totalCost)} ({evaluation.evaluatorCost.calls} calls)
          </dd>
        </div>
      </dl>
      <Aggregates evaluation={evaluation} />
      <h2>Results</h2>
      <EvaluationResults
        evaluation={key}
        total={progress.total}
        configs={evaluation.evaluatorConfigs}
        projectId={projectId}
        version={tableVersion}
        running={running}
      />
    </section>
  );
}

export function EvaluationPage({ route: { projectId }, queries }: ScreenProps<RouteOf<'evaluation'>, EvaluationPageQueries>) {
  const data = usePreloadedQuery<EvaluationPageQuery>(query, queries.evaluation);
  const evaluation = data.evaluation;
  if (!evaluation) {
    return (
      <Empty title="No such evaluation">
        <Link to={paths.evaluations(projectId)}>See the evaluations</Link>
      </Empty>
    );
  }
  return <EvaluationView projectId={projectId} evaluation={evaluation} />;
}
