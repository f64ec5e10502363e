// Model prices (docs/observability.md#prices) over REST and GraphQL: built-in ones, users' own
// with effective dates, and the costs computed at ingestion from them.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { legacySpan } from '../../test/helpers/spans.js';

const server = useTestServer({ OTLP_GRPC_PORT: '0' });

describe('model prices', () => {
  it('lists built-in prices with their effective dates', async () => {
    const response = await server.request('GET', '/observability/prices?model=gpt-4o');
    expect(response.status).toBe(200);
    expect(response.body).toContainEqual({
      id: null,
      model: 'gpt-4o',
      input: 2.5,
      output: 10,
      cached_input: 1.25,
      effective_from: '2024-10-02T00:00:00.000Z',
      source: 'builtin',
    });
    expect(response.body).toContainEqual(expect.objectContaining({ model: 'gpt-4o', input: 5, effective_from: '2024-05-13T00:00:00.000Z' }));
    expect(response.body.every((price: any) => price.model.startsWith('gpt-4o'))).toBe(true);
    const resolved = await server.request('GET', '/observability/prices/resolve?model=openai/gpt-4o-2024-08-06&at=2024-09-01');
    expect(resolved.body).toMatchObject({ model: 'gpt-4o', input: 5, output: 15 });
  });

  it('lets users add, correct and delete prices, which apply to spans ingested afterwards', async () => {
    const bad = await server.request('POST', '/observability/prices', { model: '', input: -1, effective_from: 'soon' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: any) => d.loc.join('.'))).toEqual(['body.model', 'body.input', 'body.output', 'body.effective_from']);

    const created = await server.request('POST', '/observability/prices', { model: 'my-llama', input: 1, output: 2, cached_input: 0.5 });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      model: 'my-llama',
      input: 1,
      output: 2,
      cached_input: 0.5,
      effective_from: '1970-01-01T00:00:00.000Z',
      source: 'user',
    });
    const corrected = await server.request('POST', '/observability/prices', { model: 'my-llama', input: 3, output: 4 });
    expect(corrected.body).toMatchObject({ id: created.body.id, input: 3, output: 4, cached_input: null });
    const later = await server.request('POST', '/observability/prices', { model: 'my-llama', input: 10, output: 20, effective_from: '2024-05-01T12:05:00Z' });
    // A user override of a built-in model.
    await server.request('POST', '/observability/prices', { model: 'gpt-4o-mini', input: 1, output: 1, effective_from: '2024-01-01' });

    const span = (id: string, start: number, model: string) =>
      legacySpan(id, null, start, start + 1, { config: { model }, tokens: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 } });
    await server.request('POST', '/observability/trace', {
      trace: 'priced',
      spans: [span('before', 0, 'my-llama-3-8b'), span('after', 600, 'My-Llama'), span('mini', 0, 'gpt-4o-mini'), span('free', 0, 'unknown-model')],
    });
    const cost = async (id: string) => (await server.request('GET', `/observability/spans/${id}?type=span&trace_id=priced`)).body.metadata.cost;
    expect(await cost('before')).toBe(7); // 3 + 4 before the later price took effect
    expect(await cost('after')).toBe(30);
    expect(await cost('mini')).toBe(2);
    expect(await cost('free')).toBeNull();

    const gql = await server.graphql(`{ modelPrices(source: USER, first: 10) { edges { node { model input output effectiveFrom source } } } }`);
    expect(gql.data.modelPrices.edges.map((e: any) => e.node.model)).toEqual(['gpt-4o-mini', 'my-llama', 'my-llama']);
    const mutation = await server.graphql(`mutation { upsertModelPrice(input: { model: "gql-model", input: 1.5, output: 2.5 }) { id model input source } }`);
    expect(mutation.data.upsertModelPrice).toMatchObject({ model: 'gql-model', input: 1.5, source: 'USER' });
    const invalid = await server.graphql(`mutation { upsertModelPrice(input: { model: "x", input: -1, output: 1 }) { id } }`);
    expect(invalid.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', detail: [{ loc: ['body', 'input'], type: 'greater_than_equal' }] });

    expect((await server.request('DELETE', `/observability/prices/${later.body.id}`)).status).toBe(204);
    expect((await server.request('DELETE', `/observability/prices/${later.body.id}`)).status).toBe(404);
    const deleted = await server.graphql(`mutation ($id: ID!) { deleteModelPrice(id: $id) }`, { id: mutation.data.upsertModelPrice.id });
    expect(deleted.data.deleteModelPrice).toBe(mutation.data.upsertModelPrice.id);
    const remaining = (await server.request('GET', '/observability/prices?source=user')).body.map((p: any) => [p.model, p.input]);
    expect(remaining).toEqual([
      ['gpt-4o-mini', 1],
      ['my-llama', 3],
    ]);
  });
});
