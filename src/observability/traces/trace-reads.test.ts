// REST reads (trace-reads.ts, docs/contract.md 4.1, 4.2): the span tree of a trace and of a span,
// field by field, and their 404s and 422s. The cost and usage a trace's root shows are
// trace-reads.root-figures.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { legacySpan, ingestSpans, writeSpanIn } from '../../../test/helpers/spans.js';
import { requestContext } from '../../shared/context.js';
import { writeSpans } from '../ingestion/span-writer.js';
import type { SpanRecord } from '../ingestion/span-record.js';
import type { SpanJson } from './responses.js';
import { stringifySpanTree } from './span-json-text.js';
import { getTraceTree } from './trace-reads.js';

const server = useTestServer();
let projectId: string;

const ingest = (trace: string, spans: unknown[]) => ingestSpans(server, trace, spans);

beforeAll(async () => {
  projectId = (await server.assay.db.project.findFirstOrThrow()).id;
  // r → (a, b, c); a → (a1, a2). Leaves first, siblings out of order; a and b start together.
  await ingest('tree', [
    legacySpan('a1', 'a', 3, 4, { spankind: 'retriever', outputs: { documents: ['d1'] } }),
    legacySpan('a2', 'a', 2, 2.5, { spankind: 'embedding' }),
  ]);
  await ingest('tree', [
    legacySpan('c', 'r', 5, 9, { spankind: 'tool', status: 'ERROR' }),
    legacySpan('b', 'r', 1, 2),
    legacySpan('a', 'r', 1, 4.25, {
      spankind: 'llm',
      status: 'ok',
      inputs: { prompt: 'Say hi' },
      outputs: { completion: 'hi' },
      internals: { raw: { choices: 1 } },
      config: { model: 'gpt-4o', temperature: 0 },
      tokens: { prompt_tokens: 12, completion_tokens: 3 },
      cost: 0.0021,
    }),
  ]);
  await ingest('tree', [
    legacySpan('r', null, 0, 10, {
      name: 'pipeline',
      spankind: 'workflow',
      status: 'ok',
      environment: 'staging',
      variant_id: 'var-1',
      variant_name: 'baseline',
      revision: 2,
      user: 'user-1',
      session_id: 'session-1',
      inputs: { question: 'hello?' },
      outputs: { answer: 'hi' },
    }),
  ]);
});

type Tree = { id: string; children: Tree[] | null };
/** The tree as nested ids: `{r: {a: {a2: {}, a1: {}}, …}}` keeps the order of children. */
const idTree = (node: Tree): unknown => [node.id, (node.children ?? []).map(idTree)];

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const stringOrNull = (value: unknown) => value === null || typeof value === 'string';
const numberOrNull = (value: unknown) => value === null || typeof value === 'number';
const objectOrNull = (value: unknown) => value === null || (typeof value === 'object' && !Array.isArray(value));

/** docs/contract.md 2.1, for every span of a tree: all fields present, each of its type. */
function expectContractShape(top: any) {
  const stack = [top];
  while (stack.length > 0) {
    const span = stack.pop();
    expect(Object.keys(span).sort()).toEqual([
      'children',
      'config',
      'content',
      'created_at',
      'environment',
      'id',
      'metadata',
      'model',
      'name',
      'parent_span_id',
      'project_id',
      'session_id',
      'spankind',
      'status',
      'status_message',
      'trace_id',
      'user_id',
      'variant',
    ]);
    expect(span.id).toBeTypeOf('string');
    expect(span.name).toBeTypeOf('string');
    expect(span.project_id).toBe(projectId);
    expect(stringOrNull(span.parent_span_id)).toBe(true);
    expect(span.created_at).toMatch(iso);
    expect(Object.keys(span.variant).sort()).toEqual(['revision', 'variant_id', 'variant_name']);
    expect(stringOrNull(span.variant.variant_id) && stringOrNull(span.variant.variant_name)).toBe(true);
    expect(numberOrNull(span.variant.revision)).toBe(true);
    expect(stringOrNull(span.environment)).toBe(true);
    expect(span.spankind).toMatch(/^(LLM|CHAIN|TOOL|RETRIEVER|EMBEDDING|AGENT|WORKFLOW|RERANKER|GUARDRAIL|EVALUATOR|UNKNOWN)$/);
    expect(span.status).toMatch(/^(UNSET|OK|ERROR)$/);
    expect(stringOrNull(span.status_message) && stringOrNull(span.session_id) && stringOrNull(span.model)).toBe(true);
    expect(Object.keys(span.metadata).sort()).toEqual(['cost', 'end_time', 'latency', 'start_time', 'usage']);
    expect(numberOrNull(span.metadata.cost)).toBe(true);
    expect(span.metadata.latency).toBeTypeOf('number');
    expect(span.metadata.start_time).toMatch(iso);
    expect(span.metadata.end_time).toMatch(iso);
    expect(Object.keys(span.metadata.usage).sort()).toEqual(['completion_tokens', 'prompt_tokens', 'total_tokens']);
    for (const value of Object.values(span.metadata.usage)) expect(numberOrNull(value)).toBe(true);
    expect(span.trace_id).toBeTypeOf('string');
    expect(stringOrNull(span.user_id)).toBe(true);
    expect(Object.keys(span.content).sort()).toEqual(['inputs', 'internals', 'outputs']);
    for (const value of Object.values(span.content)) expect(objectOrNull(value)).toBe(true);
    expect(objectOrNull(span.config)).toBe(true);
    expect(span.children === null || Array.isArray(span.children)).toBe(true);
    stack.push(...(span.children ?? []));
  }
}

describe('GET /observability/traces/{trace_id}', () => {
  it('answers the root with every descendant nested, each level in start order', async () => {
    const response = await server.request('GET', '/observability/traces/tree/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    // b and a start together: the span id breaks the tie.
    expect(idTree(response.body)).toEqual([
      'r',
      [
        [
          'a',
          [
            ['a2', []],
            ['a1', []],
          ],
        ],
        ['b', []],
        ['c', []],
      ],
    ]);
    expectContractShape(response.body);
  });

  it('shapes the root span field by field', async () => {
    const { body } = await server.request('GET', '/observability/traces/tree');
    expect({ ...body, children: body.children.map((child: Tree) => child.id) }).toEqual({
      id: 'r',
      name: 'pipeline',
      project_id: projectId,
      parent_span_id: null,
      created_at: '2024-05-01T12:00:00.000Z',
      variant: { variant_id: 'var-1', variant_name: 'baseline', revision: 2 },
      environment: 'staging',
      spankind: 'WORKFLOW',
      status: 'OK',
      status_message: null,
      // The root reported no cost or usage: it shows the trace's sums (here a's alone).
      metadata: {
        cost: 0.0021,
        latency: 10,
        usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
        start_time: '2024-05-01T12:00:00.000Z',
        end_time: '2024-05-01T12:00:10.000Z',
      },
      trace_id: 'tree',
      user_id: 'user-1',
      session_id: 'session-1',
      model: null,
      content: { inputs: { question: 'hello?' }, outputs: { answer: 'hi' }, internals: null },
      config: null,
      children: ['a', 'b', 'c'],
    });
  });

  it('shapes a child span field by field, and gives a leaf an empty children list', async () => {
    const { body } = await server.request('GET', '/observability/traces/tree');
    const a = body.children[0];
    expect({ ...a, children: a.children.map((child: Tree) => child.id) }).toEqual({
      id: 'a',
      name: 'span a',
      project_id: projectId,
      parent_span_id: 'r',
      created_at: '2024-05-01T12:00:01.000Z',
      variant: { variant_id: null, variant_name: null, revision: null },
      environment: null,
      spankind: 'LLM',
      status: 'OK',
      status_message: null,
      metadata: {
        cost: 0.0021,
        latency: 3.25,
        usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
        start_time: '2024-05-01T12:00:01.000Z',
        end_time: '2024-05-01T12:00:04.250Z',
      },
      trace_id: 'tree',
      user_id: null,
      session_id: null,
      model: 'gpt-4o',
      content: { inputs: { prompt: 'Say hi' }, outputs: { completion: 'hi' }, internals: { raw: { choices: 1 } } },
      config: { model: 'gpt-4o', temperature: 0 },
      children: ['a2', 'a1'],
    });
    expect(a.children[1]).toMatchObject({ id: 'a1', spankind: 'RETRIEVER', content: { outputs: { documents: ['d1'] } }, children: [] });
    expect(body.children[2]).toMatchObject({ id: 'c', status: 'ERROR', metadata: { latency: 4 }, children: [] });
  });

  it('is served under /api too', async () => {
    const direct = await server.request('GET', '/observability/traces/tree/');
    expect((await server.request('GET', '/api/observability/traces/tree/')).body).toEqual(direct.body);
  });

  it('answers the earliest top-level span when a parent never arrived', async () => {
    await ingest('orphans', [
      legacySpan('late-root', null, 5, 6),
      legacySpan('orphan', 'never-sent', 1, 2),
      legacySpan('orphan-kid', 'orphan', 1.5, 1.75),
      legacySpan('other-orphan', 'also-missing', 3, 4),
    ]);
    const { body } = await server.request('GET', '/observability/traces/orphans');
    expect(idTree(body)).toEqual(['orphan', [['orphan-kid', []]]]);
    expect(body.parent_span_id).toBe('never-sent');
    expect((await server.assay.db.trace.findFirst({ where: { traceId: 'orphans' } }))?.rootSpanId).toBe('orphan');
  });

  it('shows every span once when a faulty client sent a parent cycle', async () => {
    await ingest('cycle', [legacySpan('x', 'y', 1, 2), legacySpan('y', 'x', 2, 3), legacySpan('z', 'y', 3, 4)]);
    const trace = await server.request('GET', '/observability/traces/cycle');
    expect(idTree(trace.body)).toEqual(['x', [['y', [['z', []]]]]]);
    const span = await server.request('GET', '/observability/spans/y');
    expect(idTree(span.body)).toEqual(['y', [['z', []]]]);
  });

  it('reads a chain thousands of spans deep', async () => {
    const depth = 4000;
    const chain = Array.from({ length: depth }, (_, i) => legacySpan(`d${i}`, i === 0 ? null : `d${i - 1}`, i, i + 1));
    await ingest('deep', chain);
    const response = await server.request('GET', '/observability/traces/deep');
    expect(response.status).toBe(200);
    let levels = 1;
    for (let node = response.body; node.children.length > 0; node = node.children[0]) levels++;
    expect(levels).toBe(depth);
  });

  it('writes the same JSON text as the span objects would give, for awkward values', async () => {
    // The answer's JSON is made by SQLite from the stored columns (trace-reads.ts getTraceTreeText);
    // the span objects of getTraceTree, written by JSON.stringify, are the reference.
    const ctx = requestContext(server.assay.services, projectId);
    const base = 1_714_564_800_123_456_789n;
    const span = (spanId: string, parentSpanId: string | null, offset: bigint, extra: Partial<SpanRecord>): SpanRecord => ({
      traceId: 'texts',
      spanId,
      parentSpanId,
      name: `span ${spanId}`,
      spanKind: 'LLM',
      statusCode: 'OK',
      startTimeUnixNano: base + offset,
      endTimeUnixNano: base + offset + 76_543_211n,
      attributes: { 'ignored.here': 1 },
      ...extra,
    });
    await writeSpans(ctx, [
      span('t-root', null, 0n, {
        name: 'quote " backslash \\ newline \n tab \t control \u0001 del \u007f sep \u2028 é 😀',
        spanKind: 'CHAIN',
        statusCode: 'ERROR',
        statusMessage: 'failed: "quoted" \\ \n é 😀',
        sessionId: 'session \u2028 1',
        model: 'gpt-4o\u0001',
        inputs: { a: 1.5, b: 1e21, c: [null, true, false, 'é\n"'], d: { nested: -0.000001, zero: 0, big: 2 ** 53 + 2 } },
        outputs: { text: '</script>', empty: {}, list: [] },
        internals: null,
        config: { model: 'gpt-4o', temperature: 0.7 },
        environment: 'prod',
        userId: 'user-1',
        variantId: 'v1',
        variantName: 'baseline',
        variantRevision: 3,
        promptTokens: 10,
        completionTokens: 5,
        totalTokens: 15,
        cost: 0.1 + 0.2,
      }),
      span('t-a', 't-root', 1n, { cost: 1, promptTokens: 0, completionTokens: 0, totalTokens: 0, inputs: 'a plain string', outputs: 42, config: [1, 'two'] }),
      span('t-b', 't-root', 1n, { endTimeUnixNano: base + 1n, cost: 1e-7, inputs: 2.5, outputs: null }),
      span('t-a1', 't-a', 999_999n, { startTimeUnixNano: -1_000_000n, endTimeUnixNano: 9_000_000_000_000_000_000n, cost: 123456789.123 }),
    ]);
    const response = await server.request('GET', '/observability/traces/texts');
    expect(response.status).toBe(200);
    const objects = await getTraceTree(ctx, 'texts');
    expect(response.text).toBe(stringifySpanTree(objects));
    // The span reads, against the same objects' subtrees.
    const nodes = new Map<string, SpanJson>();
    for (const stack = [objects]; stack.length > 0;) {
      const node = stack.pop()!;
      nodes.set(node.id, node);
      stack.push(...node.children!);
    }
    for (const id of ['t-root', 't-a', 't-a1', 't-b']) {
      const generation = await server.request('GET', `/observability/spans/${id}?type=generation&trace_id=texts`);
      expect(generation.status).toBe(200);
      expect(generation.text).toBe(JSON.stringify(nodes.get(id)));
      const alone = await server.request('GET', `/observability/spans/${id}?type=span&trace_id=texts`);
      expect(alone.text).toBe(JSON.stringify({ ...nodes.get(id), children: null }));
    }
    expect(response.body.children.map((child: { id: string }) => child.id)).toEqual(['t-a', 't-b']);
    expect(response.body.children[0].children.map((child: { id: string }) => child.id)).toEqual(['t-a1']);
    // A reported cost is kept to the pico-dollar (docs/costs.md): 0.1 + 0.2 is stored as 0.3.
    expect(response.body.metadata.cost).toBe(0.3);
    expect(response.body).toMatchObject({ status_message: 'failed: "quoted" \\ \n é 😀', session_id: 'session \u2028 1', model: 'gpt-4o\u0001' });
    // Floats as JavaScript writes them (SQLite would write 1.0 and 1.0e-07).
    expect(response.text).toContain('"metadata":{"cost":1,"latency":0.076543211,');
    expect(response.text).toContain('"cost":1e-7,');
    expect(response.body.children[0].children[0].metadata).toMatchObject({
      start_time: '1969-12-31T23:59:59.999Z',
      end_time: new Date(9_000_000_000_000).toISOString(),
    });
    expect(response.body.content.inputs.d.big).toBe(2 ** 53 + 2);
  });

  it('answers 404 for an unknown or malformed trace id', async () => {
    for (const id of ['nope', 'a%20b%3F', '%E2%9C%93', '0'.repeat(100)]) {
      const response = await server.request('GET', `/observability/traces/${id}/`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: `Trace with id ${decodeURIComponent(id)} not found` });
    }
  });

  it("never answers another project's trace", async () => {
    const other = await server.assay.db.project.create({ data: { name: 'other-project' } });
    await writeSpanIn(server, other.id, 'elsewhere', 'foreign-span');
    expect((await server.request('GET', '/observability/traces/elsewhere')).body).toEqual({ detail: 'Trace with id elsewhere not found' });
    expect((await server.request('GET', '/observability/spans/foreign-span')).body).toEqual({ detail: 'Span with id foreign-span not found' });
    const { errors } = await server.graphql('{ trace(traceId: "elsewhere") { traceId } }');
    expect(errors[0].message).toBe('Trace with id elsewhere not found');
  });
});

describe('GET /observability/spans/{span_id}', () => {
  it('answers the span with its subtree by default (type=generation)', async () => {
    const byDefault = await server.request('GET', '/observability/spans/a/');
    expect(byDefault.status).toBe(200);
    expect(idTree(byDefault.body)).toEqual([
      'a',
      [
        ['a2', []],
        ['a1', []],
      ],
    ]);
    expectContractShape(byDefault.body);
    const explicit = await server.request('GET', '/api/observability/spans/a?type=generation');
    expect(explicit.body).toEqual(byDefault.body);
    // The same node as in the trace tree.
    const trace = await server.request('GET', '/observability/traces/tree');
    expect(byDefault.body).toEqual(trace.body.children[0]);
  });

  it('answers a leaf with an empty children list', async () => {
    const { body } = await server.request('GET', '/observability/spans/b');
    expect(body).toMatchObject({ id: 'b', parent_span_id: 'r', children: [] });
  });

  it('answers the span alone, children null, with type=span', async () => {
    const response = await server.request('GET', '/observability/spans/a?type=span');
    expect(response.status).toBe(200);
    const tree = (await server.request('GET', '/observability/spans/a')).body;
    expect(response.body).toEqual({ ...tree, children: null });
    expectContractShape(response.body);
  });

  it('refuses another type with a 422 at query.type', async () => {
    for (const type of ['trace', 'SPAN', '']) {
      const response = await server.request('GET', `/observability/spans/a?type=${type}`);
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        detail: [{ loc: ['query', 'type'], msg: "Input should be 'generation' or 'span'", type: 'enum' }],
      });
    }
  });

  it('answers 404 for an unknown or malformed span id', async () => {
    for (const id of ['nope', 'a%20b', '%F0%9F%98%80']) {
      const response = await server.request('GET', `/observability/spans/${id}?type=span`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: `Span with id ${decodeURIComponent(id)} not found` });
    }
  });

  it('picks the latest-starting span when an id exists in two traces, or the one trace_id names', async () => {
    await ingest('reuse-old', [legacySpan('shared', null, 0, 1, { name: 'old run' })]);
    await ingest('reuse-new', [legacySpan('shared', null, 100, 101, { name: 'new run' })]);
    expect((await server.request('GET', '/observability/spans/shared?type=span')).body).toMatchObject({ trace_id: 'reuse-new', name: 'new run' });
    expect((await server.request('GET', '/observability/spans/shared?trace_id=reuse-old')).body).toMatchObject({
      trace_id: 'reuse-old',
      name: 'old run',
      children: [],
    });
    expect((await server.request('GET', '/observability/spans/shared?trace_id=tree')).body).toEqual({ detail: 'Span with id shared not found' });
  });
});
