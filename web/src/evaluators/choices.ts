// An app's evaluator configs a new evaluation chooses from, every page of them (connections.ts).
import { graphql } from 'react-relay';
import type { ConfigChoices_query$key } from '../__generated__/ConfigChoices_query.graphql.ts';
import type { ConfigChoicesPaginationQuery } from '../__generated__/ConfigChoicesPaginationQuery.graphql.ts';
import { useWholeConnection } from '../connections.ts';

const fragment = graphql`
  fragment ConfigChoices_query on Query
  @refetchable(queryName: "ConfigChoicesPaginationQuery")
  @argumentDefinitions(appId: { type: "ID!" }, count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    evaluatorConfigs(appId: $appId, first: $count, after: $cursor) @connection(key: "ConfigChoices_evaluatorConfigs") {
      edges {
        node {
          id
          name
          evaluatorKey
        }
      }
    }
  }
`;

/** Every evaluator config of the app the query was made for. */
export function useConfigChoices(query: ConfigChoices_query$key) {
  const { data, pages } = useWholeConnection<ConfigChoicesPaginationQuery, ConfigChoices_query$key>(fragment, query);
  return { configs: data.evaluatorConfigs.edges.map((edge) => edge.node), pages };
}
