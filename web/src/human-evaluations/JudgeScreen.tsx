// The judging screen (docs/ui.md#human-evaluation): the judge's name and the case in the URL
// (?judge=&case=), the case's outputs in their recorded order, verdicts by button or key; a verdict
// is saved (judgeHumanScenario) and the next case shown.
import { useState } from 'react';
import { graphql, useLazyLoadQuery, useMutation } from 'react-relay';
import type { JudgeScreenMutation } from '../__generated__/JudgeScreenMutation.graphql.ts';
import type { JudgeScreenQuery } from '../__generated__/JudgeScreenQuery.graphql.ts';
import { globalIdOf } from '../ids.ts';
import { Link, paths, useRouter } from '../router.tsx';
import { Empty, ErrorMessage, Loading } from '../ui.tsx';
import { JudgePanel, type Verdict } from './JudgePanel.tsx';
import { useHumanScenarios } from './scenarios.ts';
import '../evaluations/evaluations.css';

const query = graphql`
  query JudgeScreenQuery($id: ID!) {
    humanEvaluation(id: $id) {
      ...humanEvaluationSummaryFields @relay(mask: false)
    }
  }
`;

const mutation = graphql`
  mutation JudgeScreenMutation($evaluationId: ID!, $scenarioId: ID!, $input: JudgeHumanScenarioInput!) {
    judgeHumanScenario(evaluationId: $evaluationId, scenarioId: $scenarioId, input: $input) {
      ...humanScenarioFields @relay(mask: false)
    }
  }
`;

const JUDGE_KEY = 'assay-judge';

export function JudgeScreen({ projectId, evaluationId, judge, at }: { projectId: string; evaluationId: string; judge: string | null; at: number | null }) {
  const { navigate } = useRouter();
  const id = globalIdOf('HumanEvaluation', evaluationId);
  const data = useLazyLoadQuery<JudgeScreenQuery>(query, { id });
  const scenarios = useHumanScenarios(id, 0);
  const [name, setName] = useState(judge ?? localStorage.getItem(JUDGE_KEY) ?? '');
  const [commit, busy] = useMutation<JudgeScreenMutation>(mutation);
  const [failure, setFailure] = useState<unknown>(null);
  const evaluation = data.humanEvaluation;
  if (!evaluation)
    return (
      <Empty title="No such human evaluation">
        <Link to={paths.humanEvaluations(projectId)}>See the human evaluations</Link>
      </Empty>
    );
  const go = (nextJudge: string, index: number | null) => navigate(paths.humanJudge(projectId, evaluationId, nextJudge, index), { replace: true });
  const header = (
    <>
      <p className="breadcrumb">
        <Link to={paths.humanEvaluations(projectId)}>Human evaluations</Link> /{' '}
        <Link to={paths.humanEvaluation(projectId, evaluationId)}>{evaluation.variantNames.join(' vs ')}</Link> / judging
      </p>
      <h1>Judging {evaluation.variantNames.join(' vs ')}</h1>
    </>
  );
  if (!judge)
    return (
      <section>
        {header}
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
      </section>
    );
  if (scenarios.rows.length === 0) return scenarios.complete ? <Empty title="This evaluation has no case" /> : <Loading label="Loading the cases…" />;
  const rows = scenarios.rows;
  const unjudged = rows.findIndex(
    (row) => !row.judgements.some((judgement) => judgement.judge === judge && (judgement.vote != null || judgement.score != null)),
  );
  const index = at !== null ? Math.min(Math.max(at - 1, 0), rows.length - 1) : Math.max(unjudged, 0);
  const scenario = rows[index];
  const move = (step: 1 | -1) => {
    const next = index + step;
    if (next >= 0 && next < rows.length) go(judge, next + 1);
  };
  const onVerdict = (verdict: Verdict) => {
    setFailure(null);
    commit({
      variables: { evaluationId: id, scenarioId: scenario.id, input: { judge, ...verdict } },
      onCompleted: (response) => {
        scenarios.replace(index, response.judgeHumanScenario);
        if (index < rows.length - 1) go(judge, index + 2);
      },
      onError: setFailure,
    });
  };
  const judged = rows.filter((row) =>
    row.judgements.some((judgement) => judgement.judge === judge && (judgement.vote != null || judgement.score != null)),
  ).length;
  return (
    <section>
      {header}
      <p>
        Judging as <strong>{judge}</strong> ({judged} of {rows.length} judged
        {!scenarios.complete ? ', more cases loading' : ''}).{' '}
        <Link to={paths.humanJudge(projectId, evaluationId)} onClick={() => localStorage.removeItem(JUDGE_KEY)}>
          Not {judge}?
        </Link>
      </p>
      <p className="muted small" id="judge-keys">
        {evaluation.evaluationType === 'HUMAN_A_B_TESTING'
          ? 'Keys: ← or 1 left is better, → or 2 right is better, 3 or G both good, 4 or B both bad, N next, P previous.'
          : 'Keys: type a score and Enter; N next, P previous (outside the score field).'}
      </p>
      {failure !== null && <ErrorMessage error={failure} />}
      <JudgePanel
        type={evaluation.evaluationType}
        scenario={scenario}
        judge={judge}
        index={index}
        count={rows.length}
        busy={busy}
        onVerdict={onVerdict}
        onMove={move}
      />
    </section>
  );
}
