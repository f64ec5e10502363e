// The app screens' entry points (docs/ui.md#routes-and-preloading): the apps, an app with its
// variants, configs and test sets, and a variant's revisions.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import AppsListQueryNode, { type AppsListQuery } from '../__generated__/AppsListQuery.graphql.ts';
import AppsPageQueryNode, { type AppsPageQuery } from '../__generated__/AppsPageQuery.graphql.ts';
import VariantPageQueryNode, { type VariantPageQuery } from '../__generated__/VariantPageQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';
import { globalIdOf } from '../ids.ts';

export type AppListQueries = { list: PreloadedQuery<AppsListQuery> };
export type AppPageQueries = { app: PreloadedQuery<AppsPageQuery> };
export type VariantPageQueries = { variant: PreloadedQuery<VariantPageQuery> };

export const appList = entryPoint(
  async () => (await import('./Apps.tsx')).AppList,
  (environment): AppListQueries => ({ list: loadQuery<AppsListQuery>(environment, AppsListQueryNode, {}, { fetchPolicy: 'store-and-network' }) }),
);

export const appPage = entryPoint(
  async () => (await import('./Apps.tsx')).AppPage,
  (environment, { appId }): AppPageQueries => ({
    app: loadQuery<AppsPageQuery>(environment, AppsPageQueryNode, { id: globalIdOf('App', appId) }, { fetchPolicy: 'store-and-network' }),
  }),
);

export const variantPage = entryPoint(
  async () => (await import('./VariantPage.tsx')).VariantPage,
  (environment, { variantId }): VariantPageQueries => ({
    variant: loadQuery<VariantPageQuery>(environment, VariantPageQueryNode, { id: globalIdOf('Variant', variantId) }, { fetchPolicy: 'store-and-network' }),
  }),
);
