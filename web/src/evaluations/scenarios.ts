// An evaluation's scenarios for the results table, every page of them (paging.ts).
import { fetchQuery, graphql, useRelayEnvironment } from 'react-relay';
import type { scenariosPageQuery, scenariosPageQuery$data } from '../__generated__/scenariosPageQuery.graphql.ts';
import { usePagedRows, type Paged } from '../paging.ts';

const pageQuery = graphql`
  query scenariosPageQuery($id: ID!, $after: String) {
    evaluation(id: $id) {
      scenarios(first: 100, after: $after) {
        edges {
          node {
            position
            inputs
            correctAnswers
            ...evaluationScenarioFields @relay(mask: false)
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`;

// A scenario's outputs and scores, as the results table and the comparison both read them; spread
// unmasked (`@relay(mask: false)`), so no component reads it as a fragment.
export const evaluationScenarioFields = graphql`
  fragment evaluationScenarioFields on EvaluationScenario {
    id
    traceId
    outputs {
      cost
      latency
      result {
        type
        value
        error {
          message
        }
      }
    }
    results {
      evaluatorConfigId
      result {
        type
        value
        error {
          message
        }
      }
    }
  }
`;

export type Scenario = NonNullable<scenariosPageQuery$data['evaluation']>['scenarios']['edges'][number]['node'];

/** The scenarios of the evaluation `id` (global); loads again whenever `version` changes. */
export function useScenarioRows(id: string, version: number): Paged<Scenario> {
  const environment = useRelayEnvironment();
  return usePagedRows(
    async (after) => {
      const data = await fetchQuery<scenariosPageQuery>(environment, pageQuery, { id, after }, { fetchPolicy: 'network-only' }).toPromise();
      const page = data?.evaluation?.scenarios;
      return page ? { items: page.edges.map((edge) => edge.node), hasNextPage: page.pageInfo.hasNextPage, endCursor: page.pageInfo.endCursor } : null;
    },
    [environment, id, version],
  );
}
