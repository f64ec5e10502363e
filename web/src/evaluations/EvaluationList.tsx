// The project's evaluations (docs/ui.md#evaluations): the newest first, each with its variant, test
// set, status and progress; two or more ticked open the comparison.
import { useState } from 'react';
import { graphql, useLazyLoadQuery } from 'react-relay';
import type { EvaluationListQuery } from '../__generated__/EvaluationListQuery.graphql.ts';
import { formatTime } from '../format.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, HeadRow } from '../components/states.tsx';
import { scoreText, statusLabel } from './results.ts';
import './evaluations.css';

const query = graphql`
  query EvaluationListQuery {
    evaluations(last: 100) {
      edges {
        node {
          ...evaluationSummaryFields @relay(mask: false)
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
      }
    }
  }
`;

export function EvaluationList({ projectId }: { projectId: string }) {
  const { navigate } = useRouter();
  const data = useLazyLoadQuery<EvaluationListQuery>(query, {}, { fetchPolicy: 'store-and-network' });
  const evaluations = [...data.evaluations.edges].reverse().map((edge) => edge.node);
  const [chosen, setChosen] = useState<string[]>([]);
  const toggle = (id: string) => setChosen((current) => (current.includes(id) ? current.filter((other) => other !== id) : [...current, id]));
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
            {evaluations.map((evaluation) => {
              const name = `${evaluation.variantNames[0] ?? '?'} v${evaluation.revisions[0] ?? '?'}`;
              return (
                <tr key={evaluation.id}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Compare ${name} on ${evaluation.testsetName ?? 'its test set'}`}
                      checked={chosen.includes(evaluation.databaseId)}
                      onChange={() => toggle(evaluation.databaseId)}
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
                  <td>
                    {evaluation.aggregatedResults.map((aggregate) => `${aggregate.evaluatorConfig.name} ${scoreText(aggregate.result)}`).join(', ') || '–'}
                  </td>
                  <td>{formatTime(evaluation.createdAt)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
