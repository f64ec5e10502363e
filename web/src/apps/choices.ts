// The apps and an app's variants a form chooses from (a new evaluation, a human evaluation), every
// page of them (connections.ts).
import { graphql } from 'react-relay';
import type { AppChoices_query$key } from '../__generated__/AppChoices_query.graphql.ts';
import type { AppChoicesPaginationQuery } from '../__generated__/AppChoicesPaginationQuery.graphql.ts';
import type { VariantChoices_app$key } from '../__generated__/VariantChoices_app.graphql.ts';
import type { VariantChoicesPaginationQuery } from '../__generated__/VariantChoicesPaginationQuery.graphql.ts';
import { useWholeConnection } from '../connections.ts';

const appsFragment = graphql`
  fragment AppChoices_query on Query
  @refetchable(queryName: "AppChoicesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    apps(first: $count, after: $cursor) @connection(key: "AppChoices_apps") {
      edges {
        node {
          id
          name
        }
      }
    }
  }
`;

const variantsFragment = graphql`
  fragment VariantChoices_app on App
  @refetchable(queryName: "VariantChoicesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    variants(first: $count, after: $cursor) @connection(key: "VariantChoices_variants") {
      edges {
        node {
          id
          name
          kind
          revision
        }
      }
    }
  }
`;

/** Every app of the project. */
export function useAppChoices(query: AppChoices_query$key) {
  const { data, pages } = useWholeConnection<AppChoicesPaginationQuery, AppChoices_query$key>(appsFragment, query);
  return { apps: data.apps.edges.map((edge) => edge.node), pages };
}

/** Every variant of an app. */
export function useVariantChoices(app: VariantChoices_app$key) {
  const { data, pages } = useWholeConnection<VariantChoicesPaginationQuery, VariantChoices_app$key>(variantsFragment, app);
  return { variants: data.variants.edges.map((edge) => edge.node), pages };
}

export const appOptions = (apps: readonly { id: string; name: string }[]) => apps.map((app) => ({ value: app.id, label: app.name }));
