// Span attribute filters of the search (docs/observability.md#span-attributes): equals (as JSON:
// strings, numbers, booleans), contains (ignoring ASCII case, LIKE's wildcards taken literally),
// exists; keys with dots, quotes and backslashes; spans match on their own attributes, traces on
// any of their spans'; REST's `attributes` and GraphQL's `attributes` alike; 422s naming the field.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { ingestSpans, legacySpan } from '../../../test/helpers/spans.js';

const server = useTestServer();

// Three traces, a root and a child each; the attributes sit on the child (a1: an OpenAI call,
// a2: an Anthropic call, a3: no attributes but a root holding the odd keys).
beforeAll(async () => {
  const trace = (id: string, root: Record<string, unknown>, child: Record<string, unknown>, start: number) =>
    ingestSpans(server, id, [
      legacySpan(`${id}-root`, null, start, start + 2, { spankind: 'workflow', attributes: root }),
      legacySpan(`${id}-llm`, `${id}-root`, start, start + 1, { spankind: 'llm', attributes: child }),
    ]);
  await trace('a1', {}, { 'gen_ai.system': 'openai', 'llm.temperature': 0.5, 'llm.streaming': true, 'retry.count': 2, note: '100%_sure' }, 0);
  await trace('a2', {}, { 'gen_ai.system': 'Anthropic', 'llm.temperature': 0, 'llm.streaming': false, 'retry.count': '2', note: '100 percent' }, 60);
  await trace('a3', { 'odd "key"': 'x', 'back\\slash': 1, tags: ['a', 'b'] }, {}, 120);
});

const query = (filters: unknown) => `attributes=${encodeURIComponent(JSON.stringify(filters))}`;

async function traces(filters: unknown): Promise<string[]> {
  const response = await server.request('GET', `/observability/traces?${query(filters)}`);
  expect(response.status, response.text).toBe(200);
  return response.body.traces.map((trace: { trace_id: string }) => trace.trace_id).sort();
}

async function spans(filters: unknown): Promise<string[]> {
  const response = await server.request('GET', `/observability/spans?${query(filters)}`);
  expect(response.status, response.text).toBe(200);
  return response.body.spans.map((span: { id: string }) => span.id).sort();
}

describe('span attribute filters', () => {
  it('equals compares JSON values: a string, a number, a boolean, each of its own type', async () => {
    expect(await spans([{ key: 'gen_ai.system', operator: 'equals', value: 'openai' }])).toEqual(['a1-llm']);
    expect(await spans([{ key: 'llm.temperature', operator: 'equals', value: 0 }])).toEqual(['a2-llm']);
    expect(await spans([{ key: 'llm.temperature', operator: 'equals', value: 0.5 }])).toEqual(['a1-llm']);
    expect(await spans([{ key: 'llm.streaming', operator: 'equals', value: true }])).toEqual(['a1-llm']);
    expect(await spans([{ key: 'llm.streaming', operator: 'equals', value: false }])).toEqual(['a2-llm']);
    // The number 2 and the string "2" are different values; letter case counts.
    expect(await spans([{ key: 'retry.count', operator: 'equals', value: 2 }])).toEqual(['a1-llm']);
    expect(await spans([{ key: 'retry.count', operator: 'equals', value: '2' }])).toEqual(['a2-llm']);
    expect(await spans([{ key: 'gen_ai.system', operator: 'equals', value: 'anthropic' }])).toEqual([]);
  });

  it("contains looks in the attribute's text ignoring ASCII case, wildcards taken literally; exists needs the key alone", async () => {
    expect(await spans([{ key: 'gen_ai.system', operator: 'contains', value: 'ANTHRO' }])).toEqual(['a2-llm']);
    expect(await spans([{ key: 'note', operator: 'contains', value: '%_' }])).toEqual(['a1-llm']);
    expect(await spans([{ key: 'tags', operator: 'contains', value: '"b"' }])).toEqual(['a3-root']);
    expect(await spans([{ key: 'llm.streaming', operator: 'exists' }])).toEqual(['a1-llm', 'a2-llm']);
    expect(await spans([{ key: 'gen_ai', operator: 'exists' }])).toEqual([]);
  });

  it('takes keys with quotes and backslashes as they are, and every filter of a list', async () => {
    expect(await spans([{ key: 'odd "key"', operator: 'equals', value: 'x' }])).toEqual(['a3-root']);
    expect(await spans([{ key: 'back\\slash', operator: 'exists' }])).toEqual(['a3-root']);
    expect(
      await spans([
        { key: 'gen_ai.system', operator: 'exists' },
        { key: 'llm.streaming', operator: 'equals', value: false },
      ]),
    ).toEqual(['a2-llm']);
  });

  it('matches a trace when some span of it meets each filter, on REST and GraphQL alike', async () => {
    expect(await traces([{ key: 'gen_ai.system', operator: 'equals', value: 'openai' }])).toEqual(['a1']);
    expect(await traces([{ key: 'gen_ai.system', operator: 'exists' }])).toEqual(['a1', 'a2']);
    // Two filters met by two different spans of one trace.
    expect(
      await traces([
        { key: 'odd "key"', operator: 'exists' },
        { key: 'tags', operator: 'contains', value: 'a' },
      ]),
    ).toEqual(['a3']);
    const answer = await server.graphql(
      `query($attributes: [AttributeFilter!]) {
        traces(attributes: $attributes) { edges { node { traceId } } }
        spans(attributes: $attributes) { edges { node { spanId } } }
        traceMetrics(attributes: $attributes) { count }
      }`,
      { attributes: [{ key: 'llm.temperature', operator: 'EQUALS', value: 0 }] },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.traces.edges.map((edge: any) => edge.node.traceId)).toEqual(['a2']);
    expect(answer.data.spans.edges.map((edge: any) => edge.node.spanId)).toEqual(['a2-llm']);
    expect(answer.data.traceMetrics.count).toBe(1);
  });

  it('answers 422 naming the field for a bad filter, through REST and GraphQL', async () => {
    const fault = async (filters: unknown) => (await server.request('GET', `/observability/traces?${query(filters)}`)).body.detail;
    expect(await fault([{ key: 'x', operator: 'equals' }])).toEqual([
      { loc: ['query', 'attributes', 0, 'value'], msg: 'Field required: equals compares with a string, number or boolean', type: 'missing' },
    ]);
    expect(await fault([{ key: 'x', operator: 'contains', value: 3 }])).toEqual([
      { loc: ['query', 'attributes', 0, 'value'], msg: 'contains takes a non-empty string', type: 'value_error' },
    ]);
    expect(await fault([{ key: 'x', operator: 'exists', value: 'y' }])).toEqual([
      { loc: ['query', 'attributes', 0, 'value'], msg: 'exists takes no value', type: 'value_error' },
    ]);
    expect(await fault([{ key: '', operator: 'like', value: { a: 1 } }])).toEqual([
      { loc: ['query', 'attributes', 0, 'key'], msg: 'String should have at least 1 character', type: 'string_too_short' },
      { loc: ['query', 'attributes', 0, 'operator'], msg: "Input should be 'equals', 'contains' or 'exists'", type: 'enum' },
      expect.objectContaining({ loc: ['query', 'attributes', 0, 'value'] }),
    ]);
    const many = Array.from({ length: 11 }, () => ({ key: 'x', operator: 'exists' }));
    expect(await fault(many)).toEqual([{ loc: ['query', 'attributes'], msg: 'List should have at most 10 items', type: 'too_long' }]);
    const notJson = await server.request('GET', '/observability/spans?attributes=%5B');
    expect(notJson.status).toBe(422);
    expect(notJson.body.detail[0]).toMatchObject({ loc: ['query', 'attributes'], type: 'json_invalid' });

    const answer = await server.graphql('{ traces(attributes: [{key: "x", operator: CONTAINS}]) { edges { node { traceId } } } }');
    expect(answer.errors[0].extensions.detail).toEqual([
      { loc: ['query', 'attributes', 0, 'value'], msg: 'contains takes a non-empty string', type: 'value_error' },
    ]);
  });
});
