// The test set screens' entry points (docs/ui.md#routes-and-preloading): the test sets with the
// upload, and a page of one's rows (its cursor and the revision shown in the URL).
import { loadQuery, type PreloadedQuery } from 'react-relay';
import TestsetsListQueryNode, { type TestsetsListQuery } from '../__generated__/TestsetsListQuery.graphql.ts';
import TestsetsPageQueryNode, { type TestsetsPageQuery } from '../__generated__/TestsetsPageQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';
import { globalIdOf } from '../ids.ts';

export type TestsetListQueries = { list: PreloadedQuery<TestsetsListQuery> };
export type TestsetPageQueries = { testset: PreloadedQuery<TestsetsPageQuery> };

export const testsetList = entryPoint(
  async () => (await import('./Testsets.tsx')).TestsetList,
  (environment): TestsetListQueries => ({ list: loadQuery<TestsetsListQuery>(environment, TestsetsListQueryNode, {}, { fetchPolicy: 'store-and-network' }) }),
);

export const testsetPage = entryPoint(
  async () => (await import('./Testsets.tsx')).TestsetPage,
  (environment, { testsetId, after, revision }): TestsetPageQueries => ({
    testset: loadQuery<TestsetsPageQuery>(
      environment,
      TestsetsPageQueryNode,
      // An old revision is read from Testset.revision (docs/ui.md#test-sets); 0 stands for none.
      { id: globalIdOf('Testset', testsetId), after, revision: revision ?? 0, old: revision !== null },
      { fetchPolicy: 'store-and-network' },
    ),
  }),
);
