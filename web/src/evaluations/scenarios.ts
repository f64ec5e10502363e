// An evaluation's scenarios loaded a page at a time (the API's pages hold at most 100), the first
// page shown at once and the rest appended as they come (docs/ui.md#the-results-table). A reload
// (a live run moved on) overwrites rows in place, so the table never empties under the reader.
import { useEffect, useState } from 'react';
import { fetchQuery, graphql, useRelayEnvironment } from 'react-relay';
import type { scenariosPageQuery, scenariosPageQuery$data } from '../__generated__/scenariosPageQuery.graphql.ts';

const pageQuery = graphql`
  query scenariosPageQuery($id: ID!, $after: String) {
    evaluation(id: $id) {
      scenarios(first: 100, after: $after) {
        edges {
          node {
            id
            position
            inputs
            correctAnswers
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
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`;

export type Scenario = NonNullable<scenariosPageQuery$data['evaluation']>['scenarios']['edges'][number]['node'];

export interface ScenarioRows {
  rows: readonly Scenario[];
  /** Every page of this load has arrived. */
  complete: boolean;
  error: unknown;
}

/** The scenarios of the evaluation `id` (global); loads again whenever `version` changes. */
export function useScenarioRows(id: string, version: number): ScenarioRows {
  const environment = useRelayEnvironment();
  const [state, setState] = useState<ScenarioRows>({ rows: [], complete: false, error: null });
  useEffect(() => {
    let cancelled = false;
    (async () => {
      const loaded: Scenario[] = [];
      let after: string | null = null;
      for (;;) {
        const data: scenariosPageQuery$data | undefined = await fetchQuery<scenariosPageQuery>(environment, pageQuery, { id, after }, { fetchPolicy: 'network-only' }).toPromise();
        if (cancelled) return;
        const page: NonNullable<scenariosPageQuery$data['evaluation']>['scenarios'] | undefined = data?.evaluation?.scenarios;
        if (!page) break;
        loaded.push(...page.edges.map((edge) => edge.node));
        const more = page.pageInfo.hasNextPage && page.pageInfo.endCursor !== null;
        const snapshot = [...loaded];
        setState((current) => ({ rows: more ? [...snapshot, ...current.rows.slice(snapshot.length)] : snapshot, complete: !more, error: null }));
        if (!more) break;
        after = page.pageInfo.endCursor ?? null;
      }
    })().catch((error: unknown) => {
      if (!cancelled) setState((current) => ({ ...current, error }));
    });
    return () => {
      cancelled = true;
    };
  }, [environment, id, version]);
  return state;
}
