// The human evaluation screens' entry points (docs/ui.md#routes-and-preloading): the list with its
// form, one's results, and the judging screen.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import HumanEvaluationPageQueryNode, { type HumanEvaluationPageQuery } from '../__generated__/HumanEvaluationPageQuery.graphql.ts';
import HumanEvaluationsListQueryNode, { type HumanEvaluationsListQuery } from '../__generated__/HumanEvaluationsListQuery.graphql.ts';
import JudgeScreenQueryNode, { type JudgeScreenQuery } from '../__generated__/JudgeScreenQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';
import { globalIdOf } from '../ids.ts';

export type HumanEvaluationListQueries = { list: PreloadedQuery<HumanEvaluationsListQuery> };
export type HumanEvaluationPageQueries = { evaluation: PreloadedQuery<HumanEvaluationPageQuery> };
export type JudgeScreenQueries = { evaluation: PreloadedQuery<JudgeScreenQuery> };

export const humanEvaluationList = entryPoint(
  async () => (await import('./HumanEvaluations.tsx')).HumanEvaluationList,
  (environment): HumanEvaluationListQueries => ({
    list: loadQuery<HumanEvaluationsListQuery>(environment, HumanEvaluationsListQueryNode, {}, { fetchPolicy: 'store-and-network' }),
  }),
);

export const humanEvaluationPage = entryPoint(
  async () => (await import('./HumanEvaluationPage.tsx')).HumanEvaluationPage,
  (environment, { evaluationId }): HumanEvaluationPageQueries => ({
    // The statistics change with every verdict: always the server's.
    evaluation: loadQuery<HumanEvaluationPageQuery>(
      environment,
      HumanEvaluationPageQueryNode,
      { id: globalIdOf('HumanEvaluation', evaluationId) },
      { fetchPolicy: 'network-only' },
    ),
  }),
);

export const judgeScreen = entryPoint(
  async () => (await import('./JudgeScreen.tsx')).JudgeScreen,
  (environment, { evaluationId }): JudgeScreenQueries => ({
    // Moving from case to case changes the URL, which loads again: from the store, where every page
    // read and every verdict given (the mutation's answer) already are.
    evaluation: loadQuery<JudgeScreenQuery>(environment, JudgeScreenQueryNode, { id: globalIdOf('HumanEvaluation', evaluationId) }),
  }),
);
