// Two or more evaluations case by case (docs/ui.md#comparing-evaluations): the first is the
// baseline; regressions first, then improvements, changed outputs, the same (compare.ts). Each case
// shows every evaluation's output, the others as a text diff against the baseline's, and its scores
// with how they moved. Rows are virtualised with measured heights, so a long test set stays light.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { graphql, useFragment, usePreloadedQuery, type PreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { ComparisonQueries } from './entrypoints.ts';
import type { ComparisonCases_query$data, ComparisonCases_query$key } from '../__generated__/ComparisonCases_query.graphql.ts';
import type { ComparisonQuery } from '../__generated__/ComparisonQuery.graphql.ts';
import { formatCost, formatDuration, formatPercent } from '../format.ts';
import { Link, paths } from '../router.tsx';
import { Empty } from '../components/states.tsx';
import { changeOrder, countChanges, orderComparison, outputOf, type Change, type Classified } from './compare.ts';
import { readOutcome, type Outcome } from './outcome.ts';
import { answerText, pairsText, scoreText } from './results.ts';
import { TextDiff } from './TextDiff.tsx';
import './evaluations.css';

const query = graphql`
  query ComparisonQuery($ids: [ID!]!) {
    nodes(ids: $ids) {
      ... on Evaluation {
        id
        databaseId
        variantNames
        revisions
        testsetName
        evaluatorConfigs {
          id
          name
        }
        aggregatedResults {
          evaluatorConfig {
            id
            evaluator {
              resultType
            }
          }
          result {
            type
            value
          }
          confidenceInterval {
            low
            high
          }
        }
      }
    }
    ...ComparisonCases_query @arguments(ids: $ids)
  }
`;

// Every case with each evaluation's scenario: the comparison orders them all, so it reads them whole.
const casesFragment = graphql`
  fragment ComparisonCases_query on Query @argumentDefinitions(ids: { type: "[ID!]!" }) {
    evaluationComparison(ids: $ids) {
      position
      inputs
      correctAnswers
      scenarios {
        ...outcome_scenario
      }
    }
  }
`;

type Case = ComparisonCases_query$data['evaluationComparison'][number];
/** A case with each evaluation's outcome (null where an evaluation has none). */
type Row = Omit<Case, 'scenarios'> & { scenarios: (Outcome | null)[] };
type Column = { id: string; name: string };

const changeLabels: Record<Change, string> = { regression: 'Regressions', improvement: 'Improvements', changed: 'Output changed', same: 'The same' };
const changeBadge: Record<Change, string> = { regression: 'regression', improvement: 'improvement', changed: 'output changed', same: 'same' };

function delta(value: number | null | undefined): string {
  if (value == null || value === 0) return '';
  return value > 0 ? ` ▲ +${Number(value.toFixed(3))}` : ` ▼ ${Number(value.toFixed(3))}`;
}

function CaseRow({
  item,
  evaluations,
  configs,
  projectId,
}: {
  item: Classified<Row>;
  evaluations: readonly { id: string; label: string }[];
  configs: readonly Column[];
  projectId: string;
}) {
  const { row } = item;
  const base = outputOf(row.scenarios[0]);
  return (
    <article className={`compare-case change-${item.change}`} aria-labelledby={`case-${row.position}`}>
      <h3 id={`case-${row.position}`}>
        Case {row.position + 1} <span className={`badge change-badge-${item.change}`}>{changeBadge[item.change]}</span>
      </h3>
      <div className="compare-given">
        <pre aria-label="Inputs">{pairsText(row.inputs)}</pre>
        <pre aria-label="Expected">expected: {answerText(row.correctAnswers) || 'none'}</pre>
      </div>
      <div className="compare-cells" style={{ ['--evaluations' as string]: evaluations.length }}>
        {row.scenarios.map((scenario, index) => {
          const output = scenario?.outputs[0];
          return (
            <div className="compare-cell" key={evaluations[index].id}>
              <p className="compare-cell-head">{evaluations[index].label}</p>
              {scenario == null ? (
                <p className="muted">No result for this case.</p>
              ) : index === 0 ? (
                <pre className={output?.result.type === 'error' ? 'error-text' : undefined}>{base}</pre>
              ) : (
                <TextDiff before={base} after={outputOf(scenario)} label={`Output of ${evaluations[index].label} against the baseline`} />
              )}
              {scenario && (
                <ul className="compare-scores">
                  {configs.map((config) => {
                    const result = scenario.results.find((candidate) => candidate.evaluatorConfigId === config.id)?.result;
                    const moved = item.deltas.get(config.id)?.[index];
                    return (
                      <li
                        key={config.id}
                        className={result?.type === 'error' ? 'error-text' : moved && moved < 0 ? 'fail' : moved && moved > 0 ? 'pass' : undefined}
                      >
                        {config.name}: {scoreText(result)}
                        {index > 0 && delta(moved)}
                      </li>
                    );
                  })}
                  <li className="muted">
                    {formatCost(output?.cost)}, {formatDuration(output?.latency)}
                    {scenario.traceId && (
                      <>
                        {' · '}
                        <Link to={paths.trace(projectId, scenario.traceId)}>trace</Link>
                      </>
                    )}
                  </li>
                </ul>
              )}
            </div>
          );
        })}
      </div>
    </article>
  );
}

function ComparisonCases({
  query: key,
  evaluations,
  configs,
  projectId,
}: {
  query: ComparisonCases_query$key;
  evaluations: readonly { id: string; label: string }[];
  configs: readonly Column[];
  projectId: string;
}) {
  const cases = useFragment(casesFragment, key).evaluationComparison;
  const rows = useMemo(
    () => cases.map((item): Row => ({ ...item, scenarios: item.scenarios.map((scenario) => (scenario ? readOutcome(scenario) : null)) })),
    [cases],
  );
  const [shown, setShown] = useState<Change | 'all'>('all');
  const ordered = useMemo(
    () =>
      orderComparison<Row>(
        rows,
        configs.map((config) => config.id),
      ),
    [rows, configs],
  );
  const counts = countChanges(ordered);
  const visible = shown === 'all' ? ordered : ordered.filter((item) => item.change === shown);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: visible.length, getScrollElement: () => scroller.current, estimateSize: () => 220, overscan: 4 });

  return (
    <>
      <div className="compare-summary" role="group" aria-label="Show cases">
        <label>
          <input type="radio" name="shown" checked={shown === 'all'} onChange={() => setShown('all')} />
          All {ordered.length}
        </label>
        {changeOrder.map((change) => (
          <label key={change} className={`change-label-${change}`}>
            <input type="radio" name="shown" checked={shown === change} onChange={() => setShown(change)} />
            {changeLabels[change]} {counts[change]}
          </label>
        ))}
      </div>
      {visible.length === 0 ? (
        <Empty title="No case of this kind" />
      ) : (
        <div className="compare-scroller" ref={scroller} tabIndex={0} aria-label="Cases, regressions first">
          <div role="presentation" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((virtual) => (
              <div
                key={visible[virtual.index].row.position}
                data-index={virtual.index}
                ref={virtualizer.measureElement}
                className="compare-item"
                style={{ transform: `translateY(${virtual.start}px)` }}
              >
                <CaseRow item={visible[virtual.index]} evaluations={evaluations} configs={configs} projectId={projectId} />
              </div>
            ))}
          </div>
        </div>
      )}
    </>
  );
}

function ComparisonScreen({
  projectId,
  evaluationIds,
  comparison,
}: {
  projectId: string;
  evaluationIds: string[];
  comparison: PreloadedQuery<ComparisonQuery>;
}) {
  const data = usePreloadedQuery<ComparisonQuery>(query, comparison);
  const ids = comparison.variables.ids;
  const evaluations = data.nodes.map((node, index) => ({
    id: node?.id ?? ids[index],
    label: node?.variantNames ? `${index === 0 ? 'Baseline: ' : ''}${node.variantNames[0]} v${node.revisions?.[0]}` : 'unknown',
  }));
  // Columns: the configs every compared evaluation ran, in the baseline's order.
  const configs = useMemo(() => {
    const lists = data.nodes.map((node) => node?.evaluatorConfigs?.map((config) => config.id) ?? []);
    return (data.nodes[0]?.evaluatorConfigs ?? []).filter((config) => lists.every((list) => list.includes(config.id)));
  }, [data.nodes]);
  if (data.nodes.some((node) => !node?.id)) {
    return (
      <Empty title="No such evaluation">
        One of the evaluations is not in this project. <Link to={paths.evaluations(projectId)}>See the evaluations</Link>
      </Empty>
    );
  }
  return (
    <section aria-labelledby="compare-title" className="comparison">
      <p className="breadcrumb">
        <Link to={paths.evaluations(projectId)}>Evaluations</Link> / comparison
      </p>
      <h1 id="compare-title">Comparing {evaluationIds.length} evaluations</h1>
      <table className="traces aggregates">
        <caption>Scores over every case (95% intervals)</caption>
        <thead>
          <tr>
            <th scope="col">Evaluation</th>
            {configs.map((config) => (
              <th scope="col" key={config.id}>
                {config.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {data.nodes.map((node, index) => (
            <tr key={evaluations[index].id}>
              <th scope="row">
                <Link to={paths.evaluation(projectId, node!.databaseId!)}>{evaluations[index].label}</Link>
              </th>
              {configs.map((config) => {
                const aggregate = node?.aggregatedResults?.find((candidate) => candidate.evaluatorConfig.id === config.id);
                const share = aggregate?.evaluatorConfig.evaluator?.resultType === 'BOOL';
                const show = (value: number) => (share ? formatPercent(value) : value.toFixed(3));
                const value = typeof aggregate?.result?.value === 'number' ? aggregate.result.value : null;
                const ci = aggregate?.confidenceInterval;
                return (
                  <td key={config.id}>
                    {value === null ? '–' : show(value)}
                    {ci && (
                      <span className="muted small">
                        {' '}
                        [{show(ci.low)} – {show(ci.high)}]
                      </span>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <ComparisonCases query={data} evaluations={evaluations} configs={configs} projectId={projectId} />
    </section>
  );
}

export function Comparison({ route: { projectId, evaluationIds }, queries }: ScreenProps<RouteOf<'evaluation-compare'>, ComparisonQueries>) {
  if (!queries.comparison) {
    return (
      <Empty title="Choose two evaluations or more">
        <Link to={paths.evaluations(projectId)}>Tick them in the list of evaluations</Link>.
      </Empty>
    );
  }
  return <ComparisonScreen projectId={projectId} evaluationIds={evaluationIds} comparison={queries.comparison} />;
}
