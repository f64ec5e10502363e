// Scores and score configs over GraphQL (docs/scores.md#graphql): upsertScores with client ids, the
// scores of a trace that arrives after them, of its spans, `scores` paged, nodes, deleteScore,
// configs created, enforced and archived, faults named as REST names them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacySpan } from '../../test/helpers/spans.js';
import { startServer, type TestServer } from '../../test/helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server.close();
});

const SCORE_FIELDS =
  'id databaseId target traceId spanId sessionId scenarioId name dataType value stringValue comment metadata source authorType authorId authorLabel config { name } createdAt updatedAt';

async function upsert(input: Record<string, unknown>[]) {
  return server.graphql(`mutation($input: [ScoreInput!]!) { upsertScores(input: $input) { ${SCORE_FIELDS} } }`, { input });
}

describe('upsertScores', () => {
  it('writes scores before their trace arrives; the trace and its spans show them once it comes', async () => {
    const written = await upsert([
      { databaseId: 'g-trace', traceId: 'gql-late', name: 'helpful', dataType: 'BOOLEAN', value: 1, comment: 'thanks' },
      { databaseId: 'g-span', traceId: 'gql-late', spanId: 'child', name: 'accuracy', value: 0.25 },
      { databaseId: 'g-text', traceId: 'gql-late', name: 'note', stringValue: 'wordy', metadata: { by: 'ada', ref: { typename: 'x', id: 'y' } } },
    ]);
    expect(written.errors).toBeUndefined();
    expect(written.data.upsertScores[0]).toMatchObject({
      databaseId: 'g-trace',
      target: 'TRACE',
      dataType: 'BOOLEAN',
      value: 1,
      stringValue: 'True',
      source: 'API',
      authorType: 'SYSTEM',
      config: null,
    });
    expect(written.data.upsertScores[2]).toMatchObject({
      dataType: 'TEXT',
      value: null,
      stringValue: 'wordy',
      metadata: { by: 'ada', ref: { typename: 'x', id: 'y' } },
    });
    const before = await server.graphql('{ trace(traceId: "gql-late") { traceId } }');
    expect(before.data.trace).toBeNull();

    const ingested = await server.request('POST', '/observability/trace', {
      trace: 'gql-late',
      spans: [legacySpan('root', null, 0, 2), legacySpan('child', 'root', 0.5, 1)],
    });
    expect(ingested.status).toBe(200);
    const read = await server.graphql(`{
      trace(traceId: "gql-late") {
        scores { databaseId }
        all: scores(includeSpans: true) { databaseId }
        root { scores { databaseId } children { spanId scores { databaseId name value } } }
      }
    }`);
    expect(read.errors).toBeUndefined();
    expect(read.data.trace.scores.map((s: any) => s.databaseId).sort()).toEqual(['g-text', 'g-trace']);
    expect(read.data.trace.all.map((s: any) => s.databaseId).sort()).toEqual(['g-span', 'g-text', 'g-trace']);
    expect(read.data.trace.root.scores).toEqual([]);
    expect(read.data.trace.root.children[0].scores).toEqual([{ databaseId: 'g-span', name: 'accuracy', value: 0.25 }]);
  });

  it('updates a score written again with its id, and refuses another target with CONFLICT', async () => {
    await upsert([{ databaseId: 'g-again', sessionId: 'sess', name: 'stars', value: 3 }]);
    const again = await upsert([{ databaseId: 'g-again', sessionId: 'sess', name: 'stars', value: 5 }]);
    expect(again.data.upsertScores[0]).toMatchObject({ target: 'SESSION', sessionId: 'sess', value: 5 });
    const moved = await upsert([{ databaseId: 'g-again', traceId: 'elsewhere', name: 'stars', value: 5 }]);
    expect(moved.errors[0].extensions.code).toBe('CONFLICT');
  });

  it("names each faulty input's field as REST does", async () => {
    const bad = await upsert([
      { traceId: 't', name: 'ok', value: 1 },
      { name: 'nothing', value: 1 },
      { traceId: 't', spanId: 's', target: 'SESSION', name: 'n', value: 1 },
      { traceId: 't', name: '', value: 1 },
    ]);
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(bad.errors[0].extensions.detail.map((issue: any) => issue.loc.join('.'))).toEqual(['body.3.name']);
    const semantic = await upsert([
      { traceId: 't', name: 'ok', value: 1 },
      { name: 'nothing', value: 1 },
      { traceId: 't', spanId: 's', target: 'SESSION', name: 'n', value: 1 },
    ]);
    expect(semantic.errors[0].extensions.detail.map((issue: any) => issue.loc.join('.'))).toEqual([
      'body.1.target',
      'body.2.trace_id',
      'body.2.span_id',
      'body.2.session_id',
    ]);
    const wrongType = await upsert([{ traceId: 't', name: 'n', value: 1, scenarioId: Buffer.from('Score:x').toString('base64') }]);
    expect(wrongType.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('scores', () => {
  it('pages newest first with the filters of REST, and reads a score by its global id', async () => {
    await upsert([
      { databaseId: 'p-1', traceId: 'paged', name: 'p', value: 1 },
      { databaseId: 'p-2', traceId: 'paged', name: 'p', value: 2 },
      { databaseId: 'p-3', traceId: 'paged', name: 'p', value: 3, source: 'ANNOTATION' },
    ]);
    const query = `query($after: String) { scores(traceId: "paged", first: 2, after: $after) { edges { cursor node { databaseId } } pageInfo { hasNextPage endCursor } } }`;
    const first = await server.graphql(query);
    expect(first.data.scores.pageInfo.hasNextPage).toBe(true);
    const second = await server.graphql(query, { after: first.data.scores.pageInfo.endCursor });
    const ids = [...first.data.scores.edges, ...second.data.scores.edges].map((edge: any) => edge.node.databaseId);
    expect(ids.sort()).toEqual(['p-1', 'p-2', 'p-3']);
    expect(second.data.scores.pageInfo.hasNextPage).toBe(false);
    const annotated = await server.graphql('{ scores(traceId: "paged", source: ANNOTATION) { edges { node { id databaseId } } } }');
    const [{ node }] = annotated.data.scores.edges;
    expect(node.databaseId).toBe('p-3');
    const byNode = await server.graphql(`query($id: ID!) { node(id: $id) { ... on Score { databaseId value } } }`, { id: node.id });
    expect(byNode.data.node).toEqual({ databaseId: 'p-3', value: 3 });
    const bad = await server.graphql('{ scores(after: "nope") { edges { cursor } } }');
    expect(bad.errors[0].extensions.detail[0].loc).toEqual(['args', 'after']);
    const backwards = await server.graphql('{ scores(last: 2) { edges { cursor } } }');
    expect(backwards.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('deletes a score by its global id; a second time is NOT_FOUND', async () => {
    const [made] = (await upsert([{ databaseId: 'g-del', traceId: 't', name: 'n', value: 1 }])).data.upsertScores;
    const deleted = await server.graphql('mutation($id: ID!) { deleteScore(id: $id) }', { id: made.id });
    expect(deleted.data.deleteScore).toBe(made.id);
    const again = await server.graphql('mutation($id: ID!) { deleteScore(id: $id) }', { id: made.id });
    expect(again.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('score configs', () => {
  it('are created, enforced, listed, changed and archived', async () => {
    const created = await server.graphql(
      `mutation { createScoreConfig(input: { name: "tone", dataType: CATEGORICAL, categories: [{ label: "rude", value: 0 }, { label: "kind", value: 1 }], description: "How it sounds" }) { id databaseId name dataType categories { label value } description isArchived minValue maxValue } }`,
    );
    expect(created.errors).toBeUndefined();
    const config = created.data.createScoreConfig;
    expect(config).toMatchObject({
      name: 'tone',
      dataType: 'CATEGORICAL',
      categories: [
        { label: 'rude', value: 0 },
        { label: 'kind', value: 1 },
      ],
      isArchived: false,
    });
    const scored = await upsert([{ traceId: 't', configId: config.id, stringValue: 'kind' }]);
    expect(scored.data.upsertScores[0]).toMatchObject({ name: 'tone', dataType: 'CATEGORICAL', value: 1, stringValue: 'kind', config: { name: 'tone' } });
    const refused = await upsert([{ traceId: 't', configId: config.id, stringValue: 'angry' }]);
    expect(refused.errors[0].extensions.detail[0].loc).toEqual(['body', 0, 'string_value']);

    const bad = await server.graphql('mutation { createScoreConfig(input: { name: "r", dataType: NUMERIC, minValue: 5, maxValue: 1 }) { id } }');
    expect(bad.errors[0].extensions.detail[0].loc).toEqual(['body', 'max_value']);

    const archived = await server.graphql(
      'mutation($id: ID!) { updateScoreConfig(id: $id, input: { isArchived: true, description: null }) { isArchived description } }',
      {
        id: config.id,
      },
    );
    expect(archived.data.updateScoreConfig).toEqual({ isArchived: true, description: null });
    const listed = await server.graphql(
      '{ active: scoreConfigs(isArchived: false) { edges { node { name } } } all: scoreConfigs { edges { node { name isArchived } } } }',
    );
    expect(listed.data.active.edges).toEqual([]);
    expect(listed.data.all.edges).toEqual([{ node: { name: 'tone', isArchived: true } }]);
  });
});
