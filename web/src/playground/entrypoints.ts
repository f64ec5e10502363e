// The playground's entry point (docs/ui.md#playground): the revisions the URL opens, with their
// variants' other revisions and environments, and the project's test sets to take variables from.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import PlaygroundQueryNode, { type PlaygroundQuery } from '../__generated__/PlaygroundQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';
import { globalIdOf } from '../ids.ts';

export type PlaygroundQueries = { playground: PreloadedQuery<PlaygroundQuery> };

export const playground = entryPoint(
  async () => (await import('./Playground.tsx')).Playground,
  (environment, { revisionIds }): PlaygroundQueries => ({
    playground: loadQuery<PlaygroundQuery>(
      environment,
      PlaygroundQueryNode,
      { ids: revisionIds.map((id) => globalIdOf('VariantRevision', id)) },
      { fetchPolicy: 'store-and-network' },
    ),
  }),
);
