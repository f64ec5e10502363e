// The project's evaluations (docs/ui.md#evaluations): the newest first, each with its variant, test
// set, status and progress; two or more ticked open the comparison.
import { graphql, useFragment, usePaginationFragment, usePreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { EvaluationListQueries } from './entrypoints.ts';
import type { EvaluationList_query$key } from '../__generated__/EvaluationList_query.graphql.ts';
import type { EvaluationListPaginationQuery } from '../__generated__/EvaluationListPaginationQuery.graphql.ts';
import type { EvaluationListQuery } from '../__generated__/EvaluationListQuery.graphql.ts';
import type { EvaluationListRow_evaluation$key } from '../__generated__/EvaluationListRow_evaluation.graphql.ts';
import { useEveryPage } from '../connections.ts';
import { formatTime } from '../format.ts';
import { useSelection } from '../components/selection.tsx';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, ErrorMessage, HeadRow } from '../components/states.tsx';
import { scoreText, statusLabel } from './results.ts';
import './evaluations.css';

const query = graphql`
  query EvaluationListQuery {
    ...EvaluationList_query
  }
`;

// Every evaluation, newest first: read backwards from the newest, a page at a time.
const listFragment = graphql`
  fragment EvaluationList_query on Query
  @refetchable(queryName: "EvaluationListPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    evaluations(last: $count, before: $cursor) @connection(key: "EvaluationList_evaluations") {
      edges {
        node {
          id
          databaseId
          ...EvaluationListRow_evaluation
        }
      }
    }
  }
`;

const rowFragment = graphql`
  fragment EvaluationListRow_evaluation on Evaluation {
    databaseId
    variantNames
    revisions
    testsetName
    createdAt
    status {
      value
    }
    progress {
      done
      total
      errors
    }
    aggregatedResults {
      evaluatorConfig {
        name
      }
      result {
        type
        value
        error {
          message
        }
      }
    }
  }
`;

function EvaluationRow({
  projectId,
  evaluation: key,
  chosen,
  onToggle,
}: {
  projectId: string;
  evaluation: EvaluationListRow_evaluation$key;
  chosen: boolean;
  onToggle: (databaseId: string) => void;
}) {
  const evaluation = useFragment(rowFragment, key);
  const name = `${evaluation.variantNames[0] ?? '?'} v${evaluation.revisions[0] ?? '?'}`;
  return (
    <tr>
      <td>
        <input
          type="checkbox"
          aria-label={`Compare ${name} on ${evaluation.testsetName ?? 'its test set'}`}
          checked={chosen}
          onChange={() => onToggle(evaluation.databaseId)}
        />
      </td>
      <td>
        <Link to={paths.evaluation(projectId, evaluation.databaseId)}>{name}</Link>
      </td>
      <td>{evaluation.testsetName ?? '–'}</td>
      <td>
        <span className={`status status-${String(evaluation.status.value).toLowerCase()}`}>{statusLabel(String(evaluation.status.value))}</span>
      </td>
      <td className="numeric">
        {evaluation.progress.done}/{evaluation.progress.total}
        {evaluation.progress.errors > 0 && <span className="error-text"> ({evaluation.progress.errors} errors)</span>}
      </td>
      <td>{evaluation.aggregatedResults.map((aggregate) => `${aggregate.evaluatorConfig.name} ${scoreText(aggregate.result)}`).join(', ') || '–'}</td>
      <td>{formatTime(evaluation.createdAt)}</td>
    </tr>
  );
}

export function EvaluationList({ route: { projectId }, queries }: ScreenProps<RouteOf<'evaluations'>, EvaluationListQueries>) {
  const { navigate } = useRouter();
  const root = usePreloadedQuery<EvaluationListQuery>(query, queries.list);
  const { data, hasPrevious, isLoadingPrevious, loadPrevious } = usePaginationFragment<EvaluationListPaginationQuery, EvaluationList_query$key>(
    listFragment,
    root,
  );
  const pages = useEveryPage(hasPrevious, isLoadingPrevious, loadPrevious);
  const evaluations = [...data.evaluations.edges].reverse().map((edge) => edge.node);
  const { ids: chosen, toggle } = useSelection();
  return (
    <section aria-labelledby="evaluations-title">
      <div className="screen-head">
        <h1 id="evaluations-title">Evaluations</h1>
        <Link className="button-link" to={paths.newEvaluation(projectId)}>
          New evaluation
        </Link>
        <button type="button" disabled={chosen.length < 2} onClick={() => navigate(paths.compareEvaluations(projectId, chosen))}>
          Compare {chosen.length > 1 ? chosen.length : ''} selected
        </button>
      </div>
      {evaluations.length === 0 ? (
        <Empty title="No evaluation yet">
          <Link to={paths.newEvaluation(projectId)}>Start one</Link> over a test set.
        </Empty>
      ) : (
        <table className="traces evaluations">
          <caption className="visually-hidden">Evaluations, newest first; tick two or more to compare them</caption>
          <HeadRow columns={['Compare', 'Variant', 'Test set', 'Status', 'Cases', 'Scores', 'Created']} numeric={['Cases']} />
          <tbody>
            {evaluations.map((evaluation) => (
              <EvaluationRow
                key={evaluation.id}
                projectId={projectId}
                evaluation={evaluation}
                chosen={chosen.includes(evaluation.databaseId)}
                onToggle={toggle}
              />
            ))}
          </tbody>
        </table>
      )}
      {pages.error && <ErrorMessage error={pages.error} retry={pages.retry} />}
    </section>
  );
}
