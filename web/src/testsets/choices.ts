// The test sets a form chooses from (a new evaluation, a human evaluation), with their columns,
// every page of them (connections.ts).
import { graphql } from 'react-relay';
import type { TestsetChoices_query$key } from '../__generated__/TestsetChoices_query.graphql.ts';
import type { TestsetChoicesPaginationQuery } from '../__generated__/TestsetChoicesPaginationQuery.graphql.ts';
import { useWholeConnection } from '../connections.ts';

const fragment = graphql`
  fragment TestsetChoices_query on Query
  @refetchable(queryName: "TestsetChoicesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    testsets(first: $count, after: $cursor) @connection(key: "TestsetChoices_testsets") {
      edges {
        node {
          id
          databaseId
          name
          rowCount
          columns
        }
      }
    }
  }
`;

/** Every test set of the project. */
export function useTestsetChoices(query: TestsetChoices_query$key) {
  const { data, pages } = useWholeConnection<TestsetChoicesPaginationQuery, TestsetChoices_query$key>(fragment, query);
  return { testsets: data.testsets.edges.map((edge) => edge.node), pages };
}

export const testsetOptions = (testsets: readonly { id: string; name: string; rowCount: number }[]) =>
  testsets.map((testset) => ({ value: testset.id, label: `${testset.name} (${testset.rowCount} cases)` }));
