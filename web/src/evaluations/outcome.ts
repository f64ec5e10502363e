// What one evaluation made of a test case (its output, cost, latency, each config's result and the
// trace), read alike by the results table and the comparison: one inline fragment, read with
// `readInlineData` where each screen builds its rows, since those rows are plain data
// (docs/ui.md#evaluations).
import { graphql, readInlineData } from 'react-relay';
import type { outcome_scenario$data, outcome_scenario$key } from '../__generated__/outcome_scenario.graphql.ts';

const fragment = graphql`
  fragment outcome_scenario on EvaluationScenario @inline {
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

/** Plain data (tests build it by hand): without Relay's fragment marker. */
export type Outcome = Omit<outcome_scenario$data, ' $fragmentType'>;

export function readOutcome(scenario: outcome_scenario$key): Outcome {
  return readInlineData(fragment, scenario);
}
