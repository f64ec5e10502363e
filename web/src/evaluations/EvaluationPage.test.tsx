// @vitest-environment happy-dom
// An evaluation's page while its run goes on (no aggregates yet) names the table's columns from the
// route's preloaded query: no query leaves on render, only the progress subscription
// (docs/ui.md#routes-and-preloading).
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { Suspense } from 'react';
import { RelayEnvironmentProvider } from 'react-relay';
import { Environment, Network, Observable, RecordSource, Store, type GraphQLResponse } from 'relay-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { Router } from '../router.tsx';
import { evaluationPage } from './entrypoints.ts';

afterEach(cleanup);

const result = (type: string, value: unknown) => ({ type, value, error: null });

/** The API's answer to the page's query for a run under way: one case stored of three, two configs. */
const running: GraphQLResponse = {
  data: {
    evaluation: {
      id: 'RXZhbHVhdGlvbjplMQ==',
      databaseId: 'e1',
      variantNames: ['good'],
      revisions: ['2'],
      testsetName: 'capitals',
      createdAt: '2026-11-28T09:00:00.000Z',
      status: { value: 'EVALUATION_STARTED', error: null },
      progress: { done: 1, total: 3, errors: 0, status: 'EVALUATION_STARTED' },
      averageCost: null,
      totalCost: null,
      averageLatency: null,
      evaluatorCost: { calls: 0, totalCost: null },
      evaluatorConfigs: [
        { id: 'config-similar', name: 'similar' },
        { id: 'config-exact', name: 'exact' },
      ],
      aggregatedResults: [],
      scenarios: {
        edges: [
          {
            cursor: 'c0',
            node: {
              __typename: 'EvaluationScenario',
              id: 'scenario-0',
              position: 0,
              inputs: [{ name: 'country', type: 'text', value: 'France' }],
              correctAnswers: [{ key: 'correct_answer', value: 'Paris' }],
              traceId: 'trace-0',
              outputs: [{ cost: 0.002, latency: 0.1, result: result('text', 'Paris') }],
              results: [
                { evaluatorConfigId: 'config-similar', result: result('number', 0.75) },
                { evaluatorConfigId: 'config-exact', result: result('bool', true) },
              ],
            },
          },
        ],
        pageInfo: { endCursor: 'c0', hasNextPage: false },
      },
    },
  },
};

/** An environment that answers the page's query and records every operation sent. */
function recording() {
  const sent: string[] = [];
  const subscriptions: string[] = [];
  const network = Network.create(
    (operation) => {
      sent.push(operation.name);
      return Observable.from(Promise.resolve(operation.name === 'EvaluationPageQuery' ? running : { data: null, errors: [{ message: 'unexpected' }] }));
    },
    (operation) => {
      subscriptions.push(operation.name);
      return Observable.create(() => undefined);
    },
  );
  return { sent, subscriptions, environment: new Environment({ network, store: new Store(new RecordSource()) }) };
}

describe('EvaluationPage', () => {
  it('names the columns of a run under way from the preloaded query, asking nothing more', async () => {
    const { sent, subscriptions, environment } = recording();
    const route = { screen: 'evaluation', projectId: 'p1', evaluationId: 'e1' } as const;
    // As the shell does (App.tsx): the route's queries started, then its screen's lazy chunk.
    const queries = evaluationPage.load(environment, route, '');
    const Screen = evaluationPage.screen;
    render(
      <RelayEnvironmentProvider environment={environment}>
        <Router>
          <Suspense fallback={<p>Loading</p>}>
            <Screen route={route} queries={queries} />
          </Suspense>
        </Router>
      </RelayEnvironmentProvider>,
    );
    const table = await screen.findByRole('table', { name: 'Results per test case' }, { timeout: 5000 });
    const heads = within(table)
      .getAllByRole('columnheader')
      .map((head) => head.textContent);
    expect(heads).toEqual(['#', 'Inputs', 'Expected', 'Output', 'similar', 'exact', 'Cost', 'Latency', 'Trace']);
    expect(screen.getByRole('status').textContent).toBe('1 of 3 cases');
    expect(screen.getByText('The scores over every case appear when the run ends.')).toBeTruthy();
    expect(sent).toEqual(['EvaluationPageQuery']);
    // The subscription starts in an effect after the table is drawn: on a busy machine, a moment later.
    await waitFor(() => expect(subscriptions).toEqual(['EvaluationPageSubscription']));
  });
});
