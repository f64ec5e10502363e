// The evaluator config screens' entry points (docs/ui.md#routes-and-preloading): a new config's
// form and a saved one's, each with the evaluators' templates.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import ConfigEditorEditQueryNode, { type ConfigEditorEditQuery } from '../__generated__/ConfigEditorEditQuery.graphql.ts';
import ConfigEditorNewQueryNode, { type ConfigEditorNewQuery } from '../__generated__/ConfigEditorNewQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';
import { globalIdOf } from '../ids.ts';

export type NewConfigQueries = { form: PreloadedQuery<ConfigEditorNewQuery> };
export type EditConfigQueries = { form: PreloadedQuery<ConfigEditorEditQuery> };

export const newConfig = entryPoint(
  async () => (await import('./ConfigEditor.tsx')).NewConfig,
  (environment, { appId }): NewConfigQueries => ({
    form: loadQuery<ConfigEditorNewQuery>(environment, ConfigEditorNewQueryNode, { appId: globalIdOf('App', appId) }),
  }),
);

export const editConfig = entryPoint(
  async () => (await import('./ConfigEditor.tsx')).EditConfig,
  (environment, { configId }): EditConfigQueries => ({
    form: loadQuery<ConfigEditorEditQuery>(
      environment,
      ConfigEditorEditQueryNode,
      { id: globalIdOf('EvaluatorConfig', configId) },
      { fetchPolicy: 'store-and-network' },
    ),
  }),
);
