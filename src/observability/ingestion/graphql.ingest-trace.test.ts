// The legacy ingest through GraphQL: the same operation and validation as POST /observability/trace.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';

const server = useTestServer();
const mutation = `mutation($input: JSON!) { ingestTrace(input: $input) { traceId spans } }`;

describe('ingestTrace', () => {
  it('stores the spans, readable through REST like spans sent there', async () => {
    const input = {
      trace: 'gql-trace-1',
      spans: [
        { id: 'child', parent_span_id: 'root', name: 'llm', spankind: 'llm', start_time: '2026-11-22T10:00:01Z', end_time: '2026-11-22T10:00:02Z' },
        { id: 'root', name: 'agent', spankind: 'AGENT', start_time: '2026-11-22T10:00:00Z', end_time: '2026-11-22T10:00:03Z' },
      ],
    };
    const response = await server.graphql(mutation, { input });
    expect(response.errors).toBeUndefined();
    expect(response.data.ingestTrace).toEqual({ traceId: 'gql-trace-1', spans: 2 });
    const tree = (await server.request('GET', '/observability/traces/gql-trace-1')).body;
    expect(tree.id).toBe('root');
    expect(tree.metadata.latency).toBe(3);
    expect(tree.children.map((child: { id: string; spankind: string }) => [child.id, child.spankind])).toEqual([['child', 'LLM']]);
  });

  it('reports faults with the same detail as REST', async () => {
    const input = { trace: 'gql-trace-2', spans: [{ id: 's', start_time: 'yesterday', end_time: '2026-11-22T10:00:00Z' }] };
    const graphql = await server.graphql(mutation, { input });
    const rest = await server.request('POST', '/observability/trace', input);
    expect(rest.status).toBe(422);
    expect(graphql.data).toBeNull();
    expect(graphql.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', detail: rest.body.detail });
    expect(rest.body.detail.map((fault: { loc: unknown[] }) => fault.loc)).toEqual([
      ['body', 'spans', 0, 'name'],
      ['body', 'spans', 0, 'start_time'],
    ]);
  });

  it('reports a null span as BAD_USER_INPUT with the same detail as REST', async () => {
    const input = { trace: '0', spans: [null] };
    const graphql = await server.graphql(mutation, { input });
    const rest = await server.request('POST', '/observability/trace', input);
    expect(rest.status).toBe(422);
    expect(rest.body.detail).toEqual([
      { loc: ['body', 'spans', 0], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' },
    ]);
    expect(graphql.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', detail: rest.body.detail });
  });
});
