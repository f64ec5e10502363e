// A human evaluation's scenarios with every judgement, every page of them (paging.ts): what the
// judging screen shows and what progress per judge counts.
import { fetchQuery, graphql, useRelayEnvironment } from 'react-relay';
import type { humanScenariosPageQuery, humanScenariosPageQuery$data } from '../__generated__/humanScenariosPageQuery.graphql.ts';
import { usePagedRows, type Paged } from '../paging.ts';

const pageQuery = graphql`
  query humanScenariosPageQuery($id: ID!, $after: String) {
    humanEvaluation(id: $id) {
      scenarios(first: 100, after: $after) {
        edges {
          node {
            ...humanScenarioFields @relay(mask: false)
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

// The fields the judging mutation answers too, so a judged scenario replaces its row; spread
// unmasked (`@relay(mask: false)`), so no component reads it as a fragment.
export const humanScenarioFields = graphql`
  fragment humanScenarioFields on HumanEvaluationScenario {
    id
    position
    correctAnswer
    hasError
    inputs {
      inputName
      inputValue
    }
    shownOutputs {
      variantId
      variantOutput
      error
    }
    judgements {
      judge
      vote
      score
    }
  }
`;

export type HumanScenario = NonNullable<humanScenariosPageQuery$data['humanEvaluation']>['scenarios']['edges'][number]['node'];

export function useHumanScenarios(id: string, version: number): Paged<HumanScenario> {
  const environment = useRelayEnvironment();
  return usePagedRows(
    async (after) => {
      const data = await fetchQuery<humanScenariosPageQuery>(environment, pageQuery, { id, after }, { fetchPolicy: 'network-only' }).toPromise();
      const page = data?.humanEvaluation?.scenarios;
      return page ? { items: page.edges.map((edge) => edge.node), hasNextPage: page.pageInfo.hasNextPage, endCursor: page.pageInfo.endCursor } : null;
    },
    [environment, id, version],
  );
}
