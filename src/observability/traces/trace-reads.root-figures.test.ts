// The cost and usage a trace's root shows (docs/observability.md#cost-and-usage-in-a-tree): the
// trace's sums where it reported none, its own where it did, alike over REST and GraphQL.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { legacySpan, ingestSpans } from '../../../test/helpers/spans.js';
import { requestContext } from '../../shared/context.js';
import { stringifySpanTree } from './span-json-text.js';
import { getTraceTree } from './trace-reads.js';

const server = useTestServer();
let projectId: string;

const ingest = (trace: string, spans: unknown[]) => ingestSpans(server, trace, spans);

beforeAll(async () => {
  projectId = (await server.assay.db.project.findFirstOrThrow()).id;
});

// docs/observability.md#cost-and-usage-in-a-tree: a span shows its own figures; the trace's root
// that reported none shows the trace's sums, the same in every read, REST and GraphQL.
describe('cost and usage of the root', () => {
  // Three LLM calls of 0.00425 each (summed as doubles: 0.012750000000000001) under a root that
  // reported nothing, and an orphan whose parent never arrived.
  beforeAll(async () => {
    const call = (id: string, start: number) =>
      legacySpan(id, 'sums-root', start, start + 1, { spankind: 'llm', cost: 0.00425, tokens: { prompt_tokens: 100, completion_tokens: 7 } });
    await ingest('sums', [
      legacySpan('sums-root', null, 0, 10, { name: 'sums pipeline', spankind: 'workflow' }),
      call('sums-1', 1),
      call('sums-2', 2),
      call('sums-3', 3),
      legacySpan('sums-orphan', 'never-sent', 4, 5, { spankind: 'tool' }),
    ]);
    // A root that reported its own cost (not its usage), over one call.
    await ingest('own', [
      legacySpan('own-root', null, 0, 10, { name: 'own pipeline', spankind: 'agent', cost: 0.1 }),
      legacySpan('own-llm', 'own-root', 1, 2, { spankind: 'llm', cost: 0.2, tokens: { prompt_tokens: 5, completion_tokens: 1 } }),
    ]);
  });

  const sums = { cost: 0.01275, usage: { prompt_tokens: 300, completion_tokens: 21, total_tokens: 321 } };
  const figures = (span: any) => ({ cost: span.metadata.cost, usage: span.metadata.usage });

  it("gives a root that reported none the trace's sums over REST, exactly, and leaves every other span its own", async () => {
    const tree = (await server.request('GET', '/observability/traces/sums')).body;
    expect(figures(tree)).toEqual(sums);
    expect(tree.children.map(figures)).toEqual(
      Array.from({ length: 3 }, () => ({ cost: 0.00425, usage: { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 } })),
    );
    // The same sums as the trace's listing and metrics.
    const listed = (await server.request('GET', '/observability/traces?name_contains=sums%20pipeline')).body.traces[0];
    expect({ cost: listed.cost, usage: listed.usage }).toEqual(sums);
    // Read alone, with its subtree, or in a span listing: the same figures.
    expect(figures((await server.request('GET', '/observability/spans/sums-root?type=span')).body)).toEqual(sums);
    expect(figures((await server.request('GET', '/observability/spans/sums-root')).body)).toEqual(sums);
    const spans = (await server.request('GET', '/observability/spans?trace_id=sums&sort_direction=asc')).body.spans;
    expect(spans.map((span: any) => [span.id, span.metadata.cost])).toEqual([
      ['sums-root', 0.01275],
      ['sums-1', 0.00425],
      ['sums-2', 0.00425],
      ['sums-3', 0.00425],
      // An orphan is top-level but not the trace's root: its own figures.
      ['sums-orphan', null],
    ]);
    // The SQL-made text is the object path's text (getTraceTree), the sums included.
    const ctx = requestContext(server.assay.services, projectId);
    expect((await server.request('GET', '/observability/traces/sums')).text).toBe(stringifySpanTree(await getTraceTree(ctx, 'sums')));
  });

  it('keeps the cost a root reported, never adding its children to it, and fills only the usage it lacks', async () => {
    const tree = (await server.request('GET', '/observability/traces/own')).body;
    expect(figures(tree)).toEqual({ cost: 0.1, usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } });
    // The trace's cost counts each span once: 0.1 + 0.2, exactly.
    const listed = (await server.request('GET', '/observability/traces?name_contains=own%20pipeline')).body.traces[0];
    expect(listed.cost).toBe(0.3);
    const graphql = await server.graphql('{ trace(traceId: "own") { cost root { metadata { cost usage { totalTokens } } } } }');
    expect(graphql.data.trace).toEqual({ cost: 0.3, root: { metadata: { cost: 0.1, usage: { totalTokens: 6 } } } });
  });

  it('gives the same figures through GraphQL: trace root, span, span search', async () => {
    const metadata = 'metadata { cost usage { promptTokens completionTokens totalTokens } }';
    const { data, errors } = await server.graphql(`{
      trace(traceId: "sums") { cost root { id: spanId ${metadata} children { ${metadata} } } roots { id: spanId ${metadata} } }
      span(spanId: "sums-root", traceId: "sums") { ${metadata} }
      spans(traceId: "sums", spanKind: [WORKFLOW]) { edges { node { id: spanId ${metadata} } } }
    }`);
    expect(errors).toBeUndefined();
    const sums = { cost: 0.01275, usage: { promptTokens: 300, completionTokens: 21, totalTokens: 321 } };
    expect(data.trace.cost).toBe(0.01275);
    expect(data.trace.root.metadata).toEqual(sums);
    expect(data.trace.root.children.map((child: any) => child.metadata.cost)).toEqual([0.00425, 0.00425, 0.00425]);
    expect(data.trace.roots.map((root: any) => [root.id, root.metadata.cost])).toEqual([
      ['sums-root', 0.01275],
      ['sums-orphan', null],
    ]);
    expect(data.span.metadata).toEqual(sums);
    expect(data.spans.edges.map((edge: any) => edge.node)).toEqual([{ id: 'sums-root', metadata: sums }]);
  });
});
