// The judging screen (docs/ui.md#human-evaluation): the judge's name and the case in the URL
// (?judge=&case=), the case's outputs in their recorded order, verdicts by button or key; a verdict
// is saved (judgeHumanScenario) and the next case shown.
import { useState } from 'react';
import { graphql, useMutation, usePreloadedQuery } from 'react-relay';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { JudgeScreenQueries } from './entrypoints.ts';
import type { JudgeScreenMutation } from '../__generated__/JudgeScreenMutation.graphql.ts';
import type { JudgeScreenQuery } from '../__generated__/JudgeScreenQuery.graphql.ts';
import type { scenariosJudging_evaluation$key } from '../__generated__/scenariosJudging_evaluation.graphql.ts';
import { globalIdOf } from '../ids.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, ErrorMessage, Loading } from '../components/states.tsx';
import { JudgePanel, type Verdict } from './JudgePanel.tsx';
import { useJudgingScenarios, type HumanScenario } from './scenarios.ts';
import '../evaluations/evaluations.css';

const query = graphql`
  query JudgeScreenQuery($id: ID!) {
    humanEvaluation(id: $id) {
      evaluationType
      variantNames
      ...scenariosJudging_evaluation
    }
  }
`;

// The verdicts answered replace the scenario's in the store, so the screen shows them at once.
const mutation = graphql`
  mutation JudgeScreenMutation($evaluationId: ID!, $scenarioId: ID!, $input: JudgeHumanScenarioInput!) {
    judgeHumanScenario(evaluationId: $evaluationId, scenarioId: $scenarioId, input: $input) {
      id
      judgements {
        judge
        vote
        score
      }
    }
  }
`;

const JUDGE_KEY = 'assay-judge';

function Judging({
  projectId,
  evaluationId,
  evaluation: key,
  type,
  judge,
  at,
  go,
}: {
  projectId: string;
  evaluationId: string;
  evaluation: scenariosJudging_evaluation$key;
  type: string;
  judge: string;
  at: number | null;
  go: (judge: string, index: number | null) => void;
}) {
  const { rows, pages } = useJudgingScenarios(key);
  const [commit, busy] = useMutation<JudgeScreenMutation>(mutation);
  const [failure, setFailure] = useState<unknown>(null);
  if (rows.length === 0) return pages.complete ? <Empty title="This evaluation has no case" /> : <Loading label="Loading the cases…" />;
  const judgedBy = (row: HumanScenario) => row.judgements.some((judgement) => judgement.judge === judge && (judgement.vote != null || judgement.score != null));
  const unjudged = rows.findIndex((row) => !judgedBy(row));
  const index = at !== null ? Math.min(Math.max(at - 1, 0), rows.length - 1) : Math.max(unjudged, 0);
  const scenario = rows[index];
  const move = (step: 1 | -1) => {
    const next = index + step;
    if (next >= 0 && next < rows.length) go(judge, next + 1);
  };
  const onVerdict = (verdict: Verdict) => {
    setFailure(null);
    commit({
      variables: { evaluationId: globalIdOf('HumanEvaluation', evaluationId), scenarioId: scenario.id, input: { judge, ...verdict } },
      onCompleted: () => {
        if (index < rows.length - 1) go(judge, index + 2);
      },
      onError: setFailure,
    });
  };
  const judged = rows.filter(judgedBy).length;
  return (
    <>
      <p>
        Judging as <strong>{judge}</strong> ({judged} of {rows.length} judged
        {!pages.complete ? ', more cases loading' : ''}).{' '}
        <Link to={paths.humanJudge(projectId, evaluationId)} onClick={() => localStorage.removeItem(JUDGE_KEY)}>
          Not {judge}?
        </Link>
      </p>
      <p className="muted small" id="judge-keys">
        {type === 'HUMAN_A_B_TESTING'
          ? 'Keys: ← or 1 left is better, → or 2 right is better, 3 or G both good, 4 or B both bad, N next, P previous.'
          : 'Keys: type a score and Enter; N next, P previous (outside the score field).'}
      </p>
      {failure !== null && <ErrorMessage error={failure} />}
      {pages.error && <ErrorMessage error={pages.error} retry={pages.retry} />}
      <JudgePanel type={type} scenario={scenario} judge={judge} index={index} count={rows.length} busy={busy} onVerdict={onVerdict} onMove={move} />
    </>
  );
}

export function JudgeScreen({ route: { projectId, evaluationId, judge, at }, queries }: ScreenProps<RouteOf<'human-judge'>, JudgeScreenQueries>) {
  const { navigate } = useRouter();
  const data = usePreloadedQuery<JudgeScreenQuery>(query, queries.evaluation);
  const [name, setName] = useState(judge ?? localStorage.getItem(JUDGE_KEY) ?? '');
  const evaluation = data.humanEvaluation;
  if (!evaluation)
    return (
      <Empty title="No such human evaluation">
        <Link to={paths.humanEvaluations(projectId)}>See the human evaluations</Link>
      </Empty>
    );
  const go = (nextJudge: string, index: number | null) => navigate(paths.humanJudge(projectId, evaluationId, nextJudge, index), { replace: true });
  return (
    <section>
      <p className="breadcrumb">
        <Link to={paths.humanEvaluations(projectId)}>Human evaluations</Link> /{' '}
        <Link to={paths.humanEvaluation(projectId, evaluationId)}>{evaluation.variantNames.join(' vs ')}</Link> / judging
      </p>
      <h1>Judging {evaluation.variantNames.join(' vs ')}</h1>
      {judge ? (
        <Judging projectId={projectId} evaluationId={evaluationId} evaluation={evaluation} type={evaluation.evaluationType} judge={judge} at={at} go={go} />
      ) : (
        <form
          className="form"
          aria-label="Who judges"
          onSubmit={(event) => {
            event.preventDefault();
            if (!name.trim()) return;
            localStorage.setItem(JUDGE_KEY, name.trim());
            go(name.trim(), null);
          }}
        >
          <label>
            Your name as a judge
            <input value={name} onChange={(event) => setName(event.target.value)} autoComplete="name" />
          </label>
          <div className="form-actions">
            <button type="submit">Start judging</button>
          </div>
        </form>
      )}
    </section>
  );
}
