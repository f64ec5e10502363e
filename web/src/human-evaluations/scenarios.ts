// A human evaluation's scenarios with every judgement, read whole (connections.ts): the judging
// screen opens the first case the judge has not judged and counts what they have.
import { graphql } from 'react-relay';
import type { scenariosJudging_evaluation$data, scenariosJudging_evaluation$key } from '../__generated__/scenariosJudging_evaluation.graphql.ts';
import type { scenariosJudgingPaginationQuery } from '../__generated__/scenariosJudgingPaginationQuery.graphql.ts';
import { useWholeConnection } from '../connections.ts';

const fragment = graphql`
  fragment scenariosJudging_evaluation on HumanEvaluation
  @refetchable(queryName: "scenariosJudgingPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 100 }, cursor: { type: "String" }) {
    scenarios(first: $count, after: $cursor) @connection(key: "scenariosJudging_scenarios") {
      edges {
        node {
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
      }
    }
  }
`;

/** A case as the judging screen shows it. */
export type HumanScenario = scenariosJudging_evaluation$data['scenarios']['edges'][number]['node'];

/** Every scenario of the human evaluation, page after page. */
export function useJudgingScenarios(evaluation: scenariosJudging_evaluation$key) {
  const { data, pages } = useWholeConnection<scenariosJudgingPaginationQuery, scenariosJudging_evaluation$key>(fragment, evaluation);
  return { rows: data.scenarios.edges.map((edge) => edge.node), pages };
}
