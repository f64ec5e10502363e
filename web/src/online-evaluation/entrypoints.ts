// The online evaluation screens' entry points (docs/ui.md#routes-and-preloading): the rules with
// their health, the form (new, or a rule to edit) with the evaluator configs to choose from, and a
// rule's page with its stats, cost by day, backfills and first page of jobs.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import RuleFormQueryNode, { type RuleFormQuery } from '../__generated__/RuleFormQuery.graphql.ts';
import RuleListQueryNode, { type RuleListQuery } from '../__generated__/RuleListQuery.graphql.ts';
import RulePageQueryNode, { type RulePageQuery } from '../__generated__/RulePageQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';
import { globalIdOf } from '../ids.ts';

export type RuleListQueries = { list: PreloadedQuery<RuleListQuery> };
export type RuleFormQueries = { form: PreloadedQuery<RuleFormQuery> };
export type RulePageQueries = { rule: PreloadedQuery<RulePageQuery> };

export const ruleList = entryPoint(
  async () => (await import('./RuleList.tsx')).RuleList,
  (environment): RuleListQueries => ({
    list: loadQuery<RuleListQuery>(environment, RuleListQueryNode, {}, { fetchPolicy: 'store-and-network' }),
  }),
);

export const newRule = entryPoint(
  async () => (await import('./RuleForm.tsx')).NewRule,
  (environment): RuleFormQueries => ({
    form: loadQuery<RuleFormQuery>(environment, RuleFormQueryNode, { id: '', editing: false }, { fetchPolicy: 'store-and-network' }),
  }),
);

export const editRule = entryPoint(
  async () => (await import('./RuleForm.tsx')).EditRule,
  (environment, { ruleId }): RuleFormQueries => ({
    form: loadQuery<RuleFormQuery>(
      environment,
      RuleFormQueryNode,
      { id: globalIdOf('EvaluationRule', ruleId), editing: true },
      { fetchPolicy: 'network-only' },
    ),
  }),
);

export const rulePage = entryPoint(
  async () => (await import('./RulePage.tsx')).RulePage,
  (environment, { ruleId }): RulePageQueries => ({
    rule: loadQuery<RulePageQuery>(environment, RulePageQueryNode, { id: globalIdOf('EvaluationRule', ruleId) }, { fetchPolicy: 'store-and-network' }),
  }),
);
