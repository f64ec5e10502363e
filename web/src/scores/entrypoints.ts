// The scores' entry point (docs/ui.md#routes-and-preloading): the administration's Score configs.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import ScoreConfigsQueryNode, { type ScoreConfigsQuery } from '../__generated__/ScoreConfigsQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';

export interface ScoreConfigsQueries {
  [name: string]: PreloadedQuery<ScoreConfigsQuery>;
  configs: PreloadedQuery<ScoreConfigsQuery>;
}

export const scoreConfigs = entryPoint(
  async () => (await import('./ScoreConfigs.tsx')).ScoreConfigs,
  (environment): ScoreConfigsQueries => ({
    configs: loadQuery<ScoreConfigsQuery>(environment, ScoreConfigsQueryNode, {}, { fetchPolicy: 'store-and-network' }),
  }),
);
