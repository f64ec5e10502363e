// The evaluation screens' entry points (docs/ui.md#routes-and-preloading): the list, the form, an
// evaluation with the first page of its results, and the comparison of two or more.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import ComparisonQueryNode, { type ComparisonQuery } from '../__generated__/ComparisonQuery.graphql.ts';
import EvaluationListQueryNode, { type EvaluationListQuery } from '../__generated__/EvaluationListQuery.graphql.ts';
import EvaluationPageQueryNode, { type EvaluationPageQuery } from '../__generated__/EvaluationPageQuery.graphql.ts';
import NewEvaluationQueryNode, { type NewEvaluationQuery } from '../__generated__/NewEvaluationQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';
import { globalIdOf } from '../ids.ts';

export type EvaluationListQueries = { list: PreloadedQuery<EvaluationListQuery> };
export type NewEvaluationQueries = { choices: PreloadedQuery<NewEvaluationQuery> };
export type EvaluationPageQueries = { evaluation: PreloadedQuery<EvaluationPageQuery> };
/** Null when fewer than two evaluations are named: the screen says to choose more. */
export type ComparisonQueries = { comparison: PreloadedQuery<ComparisonQuery> | null };

export const evaluationList = entryPoint(
  async () => (await import('./EvaluationList.tsx')).EvaluationList,
  (environment): EvaluationListQueries => ({
    list: loadQuery<EvaluationListQuery>(environment, EvaluationListQueryNode, {}, { fetchPolicy: 'store-and-network' }),
  }),
);

export const newEvaluation = entryPoint(
  async () => (await import('./NewEvaluation.tsx')).NewEvaluation,
  (environment): NewEvaluationQueries => ({
    choices: loadQuery<NewEvaluationQuery>(environment, NewEvaluationQueryNode, {}, { fetchPolicy: 'store-and-network' }),
  }),
);

export const evaluationPage = entryPoint(
  async () => (await import('./EvaluationPage.tsx')).EvaluationPage,
  (environment, { evaluationId }): EvaluationPageQueries => ({
    evaluation: loadQuery<EvaluationPageQuery>(
      environment,
      EvaluationPageQueryNode,
      { id: globalIdOf('Evaluation', evaluationId) },
      { fetchPolicy: 'store-and-network' },
    ),
  }),
);

export const comparison = entryPoint(
  async () => (await import('./Comparison.tsx')).Comparison,
  (environment, { evaluationIds }): ComparisonQueries => ({
    comparison:
      evaluationIds.length < 2
        ? null
        : loadQuery<ComparisonQuery>(
            environment,
            ComparisonQueryNode,
            { ids: evaluationIds.map((id) => globalIdOf('Evaluation', id)) },
            { fetchPolicy: 'store-and-network' },
          ),
  }),
);
