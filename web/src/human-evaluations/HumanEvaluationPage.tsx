// A human evaluation's results (docs/ui.md#human-evaluation): how far output generation and each
// judge have got, then the statistics as the API computes them: win rates (A/B) or mean scores
// (single model) with 95% intervals, position bias and agreement between judges (kappa).
import { graphql, usePreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { HumanEvaluationPageQueries } from './entrypoints.ts';
import type { HumanEvaluationPageJudges_evaluation$key } from '../__generated__/HumanEvaluationPageJudges_evaluation.graphql.ts';
import type { HumanEvaluationPageJudgesPaginationQuery } from '../__generated__/HumanEvaluationPageJudgesPaginationQuery.graphql.ts';
import type { HumanEvaluationPageQuery, HumanEvaluationPageQuery$data } from '../__generated__/HumanEvaluationPageQuery.graphql.ts';
import { statusLabel } from '../evaluations/results.ts';
import { formatPercent, formatTime } from '../format.ts';
import { useWholeConnection } from '../connections.ts';
import { Link, paths } from '../router.tsx';
import { Empty, ErrorMessage, HeadRow } from '../components/states.tsx';
import { judgeProgress } from './judging.ts';
import '../evaluations/evaluations.css';

const query = graphql`
  query HumanEvaluationPageQuery($id: ID!) {
    humanEvaluation(id: $id) {
      databaseId
      evaluationType
      variantNames
      testsetName
      status
      statusError
      createdAt
      progress {
        done
        total
        errors
      }
      statistics {
        scenarios
        judgedScenarios
        judgements
        judges
        positiveVotes
        flagVotes
        variants {
          variantId
          variantName
          wins
          losses
          ties
          winRate
          winRateInterval {
            low
            high
          }
          scores
          meanScore
          scoreStddev
          scoreInterval {
            low
            high
          }
        }
        positionBias {
          decisive
          leftWins
          rightWins
          leftRate
          leftRateInterval {
            low
            high
          }
          pValue
        }
        agreement {
          scenarios
          judgements
          fleissKappa
          observedAgreement
          expectedAgreement
          pairs {
            judgeA
            judgeB
            scenarios
            observedAgreement
            cohenKappa
          }
        }
      }
      ...HumanEvaluationPageJudges_evaluation
    }
  }
`;

// Each judge's verdicts, counted over every scenario (read whole, connections.ts).
const judgesFragment = graphql`
  fragment HumanEvaluationPageJudges_evaluation on HumanEvaluation
  @refetchable(queryName: "HumanEvaluationPageJudgesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    scenarios(first: $count, after: $cursor) @connection(key: "HumanEvaluationPageJudges_scenarios") {
      edges {
        node {
          judgements {
            judge
            vote
            score
          }
        }
      }
    }
  }
`;

type Statistics = NonNullable<HumanEvaluationPageQuery$data['humanEvaluation']>['statistics'];

const interval = (ci: { low: number; high: number } | null | undefined, show: (value: number) => string) => (ci ? `${show(ci.low)} – ${show(ci.high)}` : '–');
const fixed = (value: number | null | undefined, digits = 2) => (value == null ? '–' : value.toFixed(digits));

function VariantTable({ ab, statistics }: { ab: boolean; statistics: Statistics }) {
  return (
    <table className="traces aggregates">
      <caption>{ab ? 'Win rates (ties left out), 95% Wilson intervals' : 'Mean scores, 95% Student t intervals'}</caption>
      <thead>
        <tr>
          <th scope="col">Variant</th>
          {ab ? (
            <>
              <th scope="col" className="numeric">
                Wins
              </th>
              <th scope="col" className="numeric">
                Losses
              </th>
              <th scope="col" className="numeric">
                Ties
              </th>
              <th scope="col" className="numeric">
                Win rate
              </th>
            </>
          ) : (
            <>
              <th scope="col" className="numeric">
                Scores
              </th>
              <th scope="col" className="numeric">
                Mean
              </th>
              <th scope="col" className="numeric">
                Std. dev.
              </th>
            </>
          )}
          <th scope="col">95% interval</th>
        </tr>
      </thead>
      <tbody>
        {statistics.variants.map((variant) => (
          <tr key={variant.variantId}>
            <th scope="row">{variant.variantName}</th>
            {ab ? (
              <>
                <td className="numeric">{variant.wins}</td>
                <td className="numeric">{variant.losses}</td>
                <td className="numeric">{variant.ties}</td>
                <td className="numeric">{formatPercent(variant.winRate)}</td>
                <td>{interval(variant.winRateInterval, formatPercent)}</td>
              </>
            ) : (
              <>
                <td className="numeric">{variant.scores}</td>
                <td className="numeric">{fixed(variant.meanScore, 1)}</td>
                <td className="numeric">{fixed(variant.scoreStddev, 1)}</td>
                <td>{interval(variant.scoreInterval, (value) => value.toFixed(1))}</td>
              </>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function JudgesProgress({ evaluation, total }: { evaluation: HumanEvaluationPageJudges_evaluation$key; total: number }) {
  const { data, pages } = useWholeConnection<HumanEvaluationPageJudgesPaginationQuery, HumanEvaluationPageJudges_evaluation$key>(judgesFragment, evaluation);
  const progress = judgeProgress(data.scenarios.edges.map((edge) => edge.node));
  if (pages.error) return <ErrorMessage error={pages.error} retry={pages.retry} />;
  if (!pages.complete) return <p className="muted">Counting each judge's verdicts…</p>;
  if (progress.length === 0) return <p className="muted">No one has judged yet.</p>;
  return (
    <ul className="plain-list judge-progress">
      {progress.map((item) => (
        <li key={item.judge}>
          {item.judge}: {item.judged} of {total}{' '}
          <progress max={total || 1} value={item.judged} aria-label={`${item.judge}'s progress`}>
            {item.judged} of {total}
          </progress>
        </li>
      ))}
    </ul>
  );
}

export function HumanEvaluationPage({ route: { projectId, evaluationId }, queries }: ScreenProps<RouteOf<'human-evaluation'>, HumanEvaluationPageQueries>) {
  const data = usePreloadedQuery<HumanEvaluationPageQuery>(query, queries.evaluation);
  const evaluation = data.humanEvaluation;
  if (!evaluation)
    return (
      <Empty title="No such human evaluation">
        <Link to={paths.humanEvaluations(projectId)}>See the human evaluations</Link>
      </Empty>
    );
  const ab = evaluation.evaluationType === 'HUMAN_A_B_TESTING';
  const { statistics } = evaluation;
  const bias = statistics.positionBias;
  const agreement = statistics.agreement;
  return (
    <section aria-labelledby="human-evaluation-title">
      <p className="breadcrumb">
        <Link to={paths.humanEvaluations(projectId)}>Human evaluations</Link> / {evaluation.databaseId}
      </p>
      <div className="screen-head">
        <h1 id="human-evaluation-title">
          {evaluation.variantNames.join(' vs ')} on {evaluation.testsetName}
        </h1>
        <Link className="button-link" to={paths.humanJudge(projectId, evaluationId)}>
          Judge
        </Link>
      </div>
      <p>
        {ab ? 'A/B test' : 'Single model test'}, created {formatTime(evaluation.createdAt)}. Outputs: {evaluation.progress.done} of {evaluation.progress.total}{' '}
        <span className="status">{statusLabel(evaluation.status)}</span>
        {evaluation.progress.errors > 0 && <span className="error-text"> ({evaluation.progress.errors} failed)</span>}
      </p>
      {evaluation.statusError && <p className="error-text">{evaluation.statusError}</p>}
      <h2>Judges</h2>
      <p>
        {statistics.judgedScenarios} of {statistics.scenarios} cases judged, {statistics.judgements} verdicts
        {ab ? ` (${statistics.positiveVotes} both good, ${statistics.flagVotes} both bad)` : ''}.
      </p>
      <JudgesProgress evaluation={evaluation} total={statistics.scenarios} />
      <h2>Results</h2>
      <VariantTable ab={ab} statistics={statistics} />
      {bias && (
        <dl className="figures" aria-label="Position bias">
          <div>
            <dt>Left output won (position bias)</dt>
            <dd>
              {formatPercent(bias.leftRate)} of {bias.decisive} decisive verdicts
            </dd>
          </div>
          <div>
            <dt>95% interval</dt>
            <dd>{interval(bias.leftRateInterval, formatPercent)}</dd>
          </div>
          <div>
            <dt>p (binomial test of 50%)</dt>
            <dd>{fixed(bias.pValue, 3)}</dd>
          </div>
        </dl>
      )}
      <dl className="figures" aria-label="Agreement between judges">
        <div>
          <dt>Fleiss' kappa</dt>
          <dd>{fixed(agreement.fleissKappa)}</dd>
        </div>
        <div>
          <dt>Observed agreement</dt>
          <dd>{formatPercent(agreement.observedAgreement)}</dd>
        </div>
        <div>
          <dt>Expected by chance</dt>
          <dd>{formatPercent(agreement.expectedAgreement)}</dd>
        </div>
        <div>
          <dt>Cases with two judges or more</dt>
          <dd>{agreement.scenarios}</dd>
        </div>
      </dl>
      {agreement.pairs.length > 0 && (
        <table className="traces aggregates">
          <caption>Agreement per pair of judges</caption>
          <HeadRow columns={['Judges', 'Cases in common', 'Agreed', "Cohen's kappa"]} numeric={['Cases in common', 'Agreed', "Cohen's kappa"]} />
          <tbody>
            {agreement.pairs.map((pair) => (
              <tr key={`${pair.judgeA}|${pair.judgeB}`}>
                <th scope="row">
                  {pair.judgeA} and {pair.judgeB}
                </th>
                <td className="numeric">{pair.scenarios}</td>
                <td className="numeric">{formatPercent(pair.observedAgreement)}</td>
                <td className="numeric">{fixed(pair.cohenKappa)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
