// One huge trace end to end: 50,000 spans (a root, 50 agents of ~1,000 descendants in four more
// levels) created with the real OpenTelemetry SDK and sent by its OTLP/HTTP protobuf exporter in
// requests of 1,000 spans, in end order (children before their parents, the root last), all
// requests at once. Then the whole tree through REST, a span's children paged through GraphQL, and
// the memory the read takes. Its own file, so it runs beside the other test files.
import { ROOT_CONTEXT, type HrTime, type Span } from '@opentelemetry/api';
import { expect, it } from 'vitest';
import { agentTrace, endOrder, startOrder, type SyntheticSpan } from '../../../../test/helpers/otlp-trace.js';
import { useTestServer } from '../../../../test/helpers/server.js';
import { testTracer } from '../../../../test/helpers/otel.js';

const TOTAL = 50_000;
/** 1 + 50 × (1 + 37 × (1 + 20 + 6)) = 50,001 spans, cut to 50,000 (the last agent loses one tool). */
const SHAPE = { agents: 50, steps: 37, calls: 20, tools: 6 };
const BATCH = 1_000;
const MB = 1024 * 1024;

const server = useTestServer();

const hr = (ns: bigint): HrTime => [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];

/** A span as stored: the SDK's ids in place of the plan's. */
interface Sent {
  id: string;
  parent: string | null;
  name: string;
  startNs: bigint;
}

it('stores a 50,000-span trace sent children-first in batches of 1,000, and reads it back whole with bounded memory', { timeout: 120_000 }, async () => {
  const timings: Record<string, number> = {};
  const lap = (name: string, since: number) => (timings[name] = Math.round(performance.now() - since));

  // 1. The SDK creates the spans parents first (a child needs its parent's context) and ends them
  // children first, as a real run does; its exporter sends them when flushed.
  let t = performance.now();
  const plan = agentTrace('plan', SHAPE, TOTAL);
  expect(plan).toHaveLength(TOTAL);
  const otel = testTracer(
    'proto',
    `${server.baseUrl}/v1/traces`,
    {},
    {
      maxExportBatchSize: BATCH,
      maxQueueSize: TOTAL,
      concurrencyLimit: TOTAL / BATCH,
      timeoutMillis: 120_000,
    },
  );
  const sdkSpans = new Map<string, Span>();
  for (const planned of plan) {
    const parent = planned.parentSpanId === null ? ROOT_CONTEXT : otel.under(sdkSpans.get(planned.parentSpanId)!);
    const attributes: Record<string, string | number> = { 'openinference.span.kind': planned.kind, 'input.value': `{"task":"${planned.name}"}` };
    if (planned.kind === 'LLM') Object.assign(attributes, { 'llm.model_name': 'gpt-4o-mini', 'llm.token_count.prompt': 120, 'llm.token_count.completion': 30 });
    sdkSpans.set(planned.spanId, otel.tracer.startSpan(planned.name, { startTime: hr(planned.startNs), attributes }, parent));
  }
  const ended = endOrder(plan);
  expect(ended.at(-1)).toBe(plan[0]); // the root goes last
  for (const planned of ended) sdkSpans.get(planned.spanId)!.end(hr(planned.endNs));
  lap('create', t);

  const sent = new Map<string, Sent>();
  const idOf = (planned: SyntheticSpan) => sdkSpans.get(planned.spanId)!.spanContext().spanId;
  for (const planned of plan) {
    const parent = planned.parentSpanId === null ? null : sdkSpans.get(planned.parentSpanId)!.spanContext().spanId;
    sent.set(idOf(planned), { id: idOf(planned), parent, name: planned.name, startNs: planned.startNs });
  }
  expect(sent.size).toBe(TOTAL);
  const traceId = sdkSpans.get(plan[0].spanId)!.spanContext().traceId;
  const rootId = idOf(plan[0]);

  t = performance.now();
  await otel.flush();
  await otel.shutdown();
  lap('ingest', t);

  // The expected children of every span, in the order the spec gives: start time, then span id.
  const expectedChildren = new Map<string, string[]>();
  const bySpanStart = (a: Sent, b: Sent) => startOrder({ spanId: a.id, startNs: a.startNs }, { spanId: b.id, startNs: b.startNs });
  for (const span of [...sent.values()].sort(bySpanStart)) {
    if (span.parent === null) continue;
    const list = expectedChildren.get(span.parent);
    if (list) list.push(span.id);
    else expectedChildren.set(span.parent, [span.id]);
  }

  // 2. REST: the whole tree, with the memory this process (server and client) takes for it.
  t = performance.now();
  const rssBefore = process.memoryUsage().rss;
  const maxRssBefore = process.resourceUsage().maxRSS * 1024;
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 5);
  const response = await fetch(`${server.baseUrl}/observability/traces/${traceId}`);
  const text = await response.text();
  const tree = JSON.parse(text);
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  clearInterval(sampler);
  // maxRSS is the peak of the whole process so far: an upper bound of the read's own peak.
  const rssGrowthBound = process.resourceUsage().maxRSS * 1024 - rssBefore;
  lap('rest read', t);
  expect(response.status).toBe(200);

  expect(tree).toMatchObject({ id: rootId, name: 'agent run', parent_span_id: null, trace_id: traceId, spankind: 'CHAIN', status: 'UNSET' });
  // Walk the tree without recursion: every span once, under its own parent, siblings in order.
  const seen = new Set<string>();
  const misplaced: string[] = [];
  const misordered: string[] = [];
  const stack = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (seen.has(node.id)) misplaced.push(`${node.id} twice`);
    seen.add(node.id);
    const expected = sent.get(node.id);
    if (!expected || expected.parent !== node.parent_span_id || expected.name !== node.name) misplaced.push(node.id);
    const childIds = node.children.map((child: { id: string }) => child.id);
    if (childIds.join() !== (expectedChildren.get(node.id) ?? []).join()) misordered.push(node.id);
    stack.push(...node.children);
  }
  expect(seen.size).toBe(TOTAL);
  expect(misplaced).toEqual([]);
  expect(misordered).toEqual([]);
  expect([...sent.keys()].filter((id) => !seen.has(id))).toEqual([]);
  expect(tree.children.map((agent: { name: string }) => agent.name)).toEqual(Array.from({ length: 50 }, (_, a) => `agent ${a}`));

  // One step's calls start scrambled, two per instant: the order is start time, then span id,
  // which is neither the order they were created in nor (for the tied pairs, by chance) their ids'.
  const step = tree.children[7].children[3];
  expect(step.name).toBe('agent 7 step 3');
  const stepCalls = step.children.map((call: { id: string; name: string; created_at: string }) => ({ id: call.id, name: call.name, at: call.created_at }));
  expect(stepCalls.map((call: { name: string }) => Number(call.name.split(' ').at(-1)))).not.toEqual(Array.from({ length: 20 }, (_, c) => c));
  expect(stepCalls.map((call: { id: string }) => call.id)).toEqual(expectedChildren.get(step.id));
  for (let i = 1; i < stepCalls.length; i++) {
    expect(stepCalls[i - 1].at <= stepCalls[i].at).toBe(true);
    if (stepCalls[i - 1].at === stepCalls[i].at) expect(stepCalls[i - 1].id < stepCalls[i].id).toBe(true);
  }
  expect(new Set(stepCalls.map((call: { at: string }) => call.at)).size).toBe(10); // ten instants, two calls each

  // 3. GraphQL: page the step's calls 6 at a time, and the root's agents 20 at a time.
  t = performance.now();
  const query = `query ($id: String!, $trace: String, $first: Int!, $after: String) {
    span(spanId: $id, traceId: $trace) { childSpans(first: $first, after: $after) { edges { node { spanId parentSpanId } } pageInfo { hasNextPage endCursor } } } }`;
  const pages = async (spanId: string, first: number) => {
    const out: { ids: string[]; hasNextPage: boolean }[] = [];
    let after: string | null = null;
    for (;;) {
      const { data, errors } = await server.graphql(query, { id: spanId, trace: traceId, first, after });
      expect(errors).toBeUndefined();
      const page = data.span.childSpans;
      expect(page.edges.every((edge: { node: { parentSpanId: string } }) => edge.node.parentSpanId === spanId)).toBe(true);
      out.push({ ids: page.edges.map((edge: { node: { spanId: string } }) => edge.node.spanId), hasNextPage: page.pageInfo.hasNextPage });
      if (!page.pageInfo.hasNextPage) {
        // Past the end: nothing more.
        const { data: beyond } = await server.graphql(query, { id: spanId, trace: traceId, first, after: page.pageInfo.endCursor });
        expect(beyond.span.childSpans).toEqual({ edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
        return out;
      }
      after = page.pageInfo.endCursor;
    }
  };
  const stepIds = expectedChildren.get(step.id)!;
  expect(await pages(step.id, 6)).toEqual([
    { ids: stepIds.slice(0, 6), hasNextPage: true },
    { ids: stepIds.slice(6, 12), hasNextPage: true },
    { ids: stepIds.slice(12, 18), hasNextPage: true },
    { ids: stepIds.slice(18, 20), hasNextPage: false },
  ]);
  const agentIds = expectedChildren.get(rootId)!;
  expect(await pages(rootId, 20)).toEqual([
    { ids: agentIds.slice(0, 20), hasNextPage: true },
    { ids: agentIds.slice(20, 40), hasNextPage: true },
    { ids: agentIds.slice(40, 50), hasNextPage: false },
  ]);
  const { data } = await server.graphql(`query ($id: String!) { trace(traceId: $id) { spanCount } }`, { id: traceId });
  expect(data.trace).toEqual({ spanCount: TOTAL });
  lap('graphql', t);

  const heapGrowthMb = (heapPeak - heapBefore) / MB;
  const rssGrowthMb = rssGrowthBound / MB;
  console.log(
    `huge trace: ${TOTAL} spans, ${(text.length / 1e6).toFixed(1)} MB of JSON; ms ${JSON.stringify(timings)}; ` +
      `read (server and client in this process): heap growth ${heapGrowthMb.toFixed(0)} MB (sampled peak), RSS growth ≤ ${rssGrowthMb.toFixed(0)} MB ` +
      `(RSS before ${(rssBefore / MB).toFixed(0)} MB, its peak so far ${(maxRssBefore / MB).toFixed(0)} MB)`,
  );
  expect(heapGrowthMb).toBeLessThan(400);
  expect(rssGrowthMb).toBeLessThan(400);
});
