// Relay Global Object Identification through a real client (urql) against a real Assay
// (docs/graphql.md#ids): every node type is refetched by `node(id:)` and `nodes(ids:)`, two spans
// with the same span id in two traces keep two global ids, and a malformed or wrong-type id is a
// clear BAD_USER_INPUT, never a 500.
import { Client, fetchExchange, gql } from '@urql/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalId } from '../shared/graphql/ids.js';
import { startEndpoint, type FakeEndpoint } from '../../test/helpers/endpoints.js';
import { createApp, startEndpointEvaluation, waitForStatus } from '../../test/helpers/evaluations.js';
import { createHumanEvaluation, judge } from '../../test/helpers/human-evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';

const server = useTestServer();
let endpoint: FakeEndpoint;
let client: Client;
beforeAll(async () => {
  endpoint = await startEndpoint((request: any) => ({ body: { message: request.body.inputs.country, cost: 0, latency: 0.01 } }));
  client = new Client({ url: `${server.baseUrl}/graphql`, exchanges: [fetchExchange], requestPolicy: 'network-only' });
});
afterAll(async () => {
  await endpoint?.close();
});

const NODES = gql`
  query ($ids: [ID!]!) {
    nodes(ids: $ids) {
      __typename
      id
      ... on App {
        databaseId
      }
      ... on Variant {
        databaseId
      }
      ... on VariantRevision {
        databaseId
      }
      ... on Testset {
        databaseId
      }
      ... on TestsetRow {
        databaseId
      }
      ... on EvaluatorConfig {
        databaseId
      }
      ... on Evaluation {
        databaseId
      }
      ... on EvaluationScenario {
        databaseId
      }
      ... on HumanEvaluation {
        databaseId
      }
      ... on HumanEvaluationScenario {
        databaseId
      }
      ... on HumanJudgement {
        databaseId
      }
      ... on ModelPrice {
        databaseId
        model
      }
      ... on Trace {
        traceId
      }
      ... on Span {
        traceId
        spanId
      }
      ... on Project {
        databaseId
      }
      ... on ApiKey {
        databaseId
      }
      ... on AuditEvent {
        databaseId
      }
      ... on User {
        databaseId
      }
    }
  }
`;

const NODE = gql`
  query ($id: ID!) {
    node(id: $id) {
      __typename
      id
    }
  }
`;

/** Each `[type, global id, fields]` refetched by `nodes(ids:)` in one request and by `node(id:)` alone. */
async function expectRefetched(expected: [string, string, Record<string, unknown>][]) {
  const nodes = await client.query(NODES, { ids: expected.map(([, id]) => id) }).toPromise();
  expect(nodes.error).toBeUndefined();
  expect(nodes.data.nodes).toEqual(expected.map(([typename, id, fields]) => expect.objectContaining({ __typename: typename, id, ...fields })));
  for (const [typename, id] of expected) {
    const one = await client.query(NODE, { id }).toPromise();
    expect(one.data.node, typename).toEqual({ __typename: typename, id });
  }
}

function span(trace: string, id: string) {
  return { trace, spans: [{ id, name: `${trace}/${id}`, spankind: 'LLM', start_time: '2026-11-22T10:00:00Z', end_time: '2026-11-22T10:00:01Z' }] };
}

describe('node and nodes', () => {
  it('refetch every node type by the global id the schema answers', async () => {
    const { appId, variant, testset, config, evaluation } = await startEndpointEvaluation(server, endpoint.url, [
      { country: 'France', correct_answer: 'France' },
    ]);
    await waitForStatus(server, evaluation.id);
    const human = await createHumanEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluation_type: 'single_model_test',
      inputs: ['country'],
      testset_id: testset.id,
      status: 'EVALUATION_FINISHED',
    });
    const humanScenarios = (await server.request('GET', `/human-evaluations/${human.id}/evaluation_scenarios`)).body;
    await judge(server, human.id, humanScenarios[0].id, 'single_model_test', { score: 70, judge: 'ann' });
    expect((await server.request('POST', '/observability/prices', { model: 'node-model', input: 1, output: 2 })).status).toBe(200);
    expect((await server.request('POST', '/observability/trace', span('trace-a', 'same'))).status).toBe(200);
    expect((await server.request('POST', '/observability/trace', span('trace-b', 'same'))).status).toBe(200);

    // Global ids as the schema answers them, from the objects' own fields.
    const read = await client
      .query(
        gql`
          query ($app: ID!, $evaluation: ID!, $human: ID!, $testset: ID!) {
            app(id: $app) {
              id
              variants(first: 1) {
                edges {
                  node {
                    id
                    appId
                    revisions {
                      id
                    }
                  }
                }
              }
            }
            testset(id: $testset) {
              id
              rows(first: 1) {
                edges {
                  node {
                    id
                  }
                }
              }
            }
            evaluatorConfigs(appId: $app, first: 1) {
              edges {
                node {
                  id
                }
              }
            }
            evaluation(id: $evaluation) {
              id
              scenarios(first: 1) {
                edges {
                  node {
                    id
                    evaluationId
                  }
                }
              }
            }
            humanEvaluation(id: $human) {
              id
              scenarios(first: 1) {
                edges {
                  node {
                    id
                    judgements {
                      id
                    }
                  }
                }
              }
            }
            modelPrices(first: 1, source: USER) {
              edges {
                node {
                  id
                }
              }
            }
            builtin: modelPrices(first: 1, source: BUILTIN) {
              edges {
                node {
                  id
                  databaseId
                }
              }
            }
            a: trace(traceId: "trace-a") {
              id
              spans(first: 1) {
                edges {
                  node {
                    id
                  }
                }
              }
            }
            b: trace(traceId: "trace-b") {
              id
              spans(first: 1) {
                edges {
                  node {
                    id
                  }
                }
              }
            }
          }
        `,
        {
          app: globalId('App', appId),
          evaluation: globalId('Evaluation', evaluation.id),
          human: globalId('HumanEvaluation', human.id),
          testset: globalId('Testset', testset.id),
        },
      )
      .toPromise();
    expect(read.error).toBeUndefined();
    const data = read.data;
    const variantNode = data.app.variants.edges[0].node;
    expect(variantNode.appId).toBe(data.app.id);
    const scenario = data.evaluation.scenarios.edges[0].node;
    expect(scenario.evaluationId).toBe(data.evaluation.id);
    expect(data.builtin.edges[0].node.databaseId).toMatch(/^builtin:/);
    const spanA = data.a.spans.edges[0].node.id;
    const spanB = data.b.spans.edges[0].node.id;
    // The same span id in two traces: two nodes, never one cache entry.
    expect(spanA).not.toBe(spanB);

    const expected: [string, string, Record<string, unknown>][] = [
      ['App', data.app.id, { databaseId: appId }],
      ['Variant', variantNode.id, { databaseId: variant.variant_id }],
      ['VariantRevision', variantNode.revisions[0].id, {}],
      ['Testset', data.testset.id, { databaseId: testset.id }],
      ['TestsetRow', data.testset.rows.edges[0].node.id, {}],
      ['EvaluatorConfig', data.evaluatorConfigs.edges[0].node.id, { databaseId: config.id }],
      ['Evaluation', data.evaluation.id, { databaseId: evaluation.id }],
      ['EvaluationScenario', scenario.id, {}],
      ['HumanEvaluation', data.humanEvaluation.id, { databaseId: human.id }],
      ['HumanEvaluationScenario', data.humanEvaluation.scenarios.edges[0].node.id, { databaseId: humanScenarios[0].id }],
      ['HumanJudgement', data.humanEvaluation.scenarios.edges[0].node.judgements[0].id, {}],
      ['ModelPrice', data.modelPrices.edges[0].node.id, { model: 'node-model' }],
      ['ModelPrice', data.builtin.edges[0].node.id, { databaseId: data.builtin.edges[0].node.databaseId }],
      ['Trace', data.a.id, { traceId: 'trace-a' }],
      ['Span', spanA, { traceId: 'trace-a', spanId: 'same' }],
      ['Span', spanB, { traceId: 'trace-b', spanId: 'same' }],
    ];
    await expectRefetched(expected);
  });

  it("refetch the nodes of access: Project, ApiKey, AuditEvent and User, each kept in the caller's project", async () => {
    const defaultProject = (await server.request('GET', '/projects')).body.find((p: { name: string }) => p.name === 'default').id;
    const key = await server.request('POST', `/projects/${defaultProject}/api-keys`, { name: 'node-key', scopes: ['read'] });
    expect(key.status, key.text).toBe(200);
    const other = await server.request('POST', '/projects', { name: 'node-other-project' });
    expect(other.status, other.text).toBe(200);
    const member = await server.request('POST', `/projects/${defaultProject}/members`, { email: 'node-member@example.com', role: 'viewer' });
    expect(member.status, member.text).toBe(200);
    const read = await client
      .query(
        gql`
          query {
            projects {
              id
              databaseId
              name
            }
            apiKeys {
              id
              databaseId
              name
            }
            auditEvents(first: 1) {
              edges {
                node {
                  id
                  databaseId
                }
              }
            }
            members {
              user {
                id
                databaseId
              }
            }
          }
        `,
        {},
      )
      .toPromise();
    expect(read.error).toBeUndefined();
    const data = read.data;
    const project = data.projects.find((p: { name: string }) => p.name === 'default');
    const otherProject = data.projects.find((p: { name: string }) => p.name === 'node-other-project');
    const apiKey = data.apiKeys.find((k: { name: string }) => k.name === 'node-key');
    const event = data.auditEvents.edges[0].node;
    const user = data.members[0].user;
    const expected: [string, string, Record<string, unknown>][] = [
      ['Project', project.id, { databaseId: defaultProject }],
      ['Project', otherProject.id, { databaseId: other.body.id }],
      ['ApiKey', apiKey.id, { databaseId: key.body.id }],
      ['AuditEvent', event.id, { databaseId: event.databaseId }],
      ['User', user.id, { databaseId: member.body.user_id }],
    ];
    await expectRefetched(expected);
    // The other project's first key belongs to a project the caller does not act in.
    const elsewhere = await client.query(NODE, { id: globalId('ApiKey', other.body.api_key.id) }).toPromise();
    expect(elsewhere.error).toBeUndefined();
    expect(elsewhere.data.node).toBeNull();
  });

  it('loads many nodes of one type in as many statements as one', async () => {
    const apps = await Promise.all(Array.from({ length: 5 }, () => createApp(server)));
    const ids = apps.map((id) => globalId('App', id));
    const statementsFor = async (some: string[]) => {
      server.resetQueries();
      const answer = await client.query(NODES, { ids: some }).toPromise();
      expect(answer.data.nodes.map((node: { databaseId: string }) => node.databaseId)).toEqual(some.map((id) => apps[ids.indexOf(id)]));
      return server.queries.length;
    };
    expect(await statementsFor(ids)).toBe(await statementsFor(ids.slice(0, 1)));
  });

  it('answers null for a well-formed id with nothing behind it', async () => {
    const missing = await client.query(NODE, { id: globalId('App', '00000000-0000-7000-8000-000000000000') }).toPromise();
    expect(missing.error).toBeUndefined();
    expect(missing.data.node).toBeNull();
  });

  it('refuses a malformed or wrong-type id with BAD_USER_INPUT', async () => {
    const appId = globalId('App', await createApp(server));
    const wrongType = await server.graphql(`query ($id: ID!) { testset(id: $id) { id } }`, { id: appId });
    expect(wrongType.errors[0]).toMatchObject({ message: expect.stringContaining('is not of type: Testset'), extensions: { code: 'BAD_USER_INPUT' } });
    for (const id of ['not base64 !', Buffer.from('no-type-here').toString('base64'), '']) {
      const malformed = await server.graphql(`query ($id: ID!) { app(id: $id) { id } node(id: $id) { id } }`, { id });
      expect(malformed.errors.length, id).toBeGreaterThan(0);
      expect(
        malformed.errors.every((error: any) => error.extensions.code === 'BAD_USER_INPUT'),
        JSON.stringify(malformed.errors),
      ).toBe(true);
    }
    const filter = await server.graphql(`query ($id: ID!) { traces(appId: $id) { edges { node { id } } } }`, { id: globalId('Testset', 'x') });
    expect(filter.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', detail: [{ loc: ['args', 'appId'] }] });
  });
});
