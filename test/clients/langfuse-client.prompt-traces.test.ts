// Traces linked to the prompt version that produced them (docs/deployments.md#traces-of-a-revision):
// the real Langfuse SDK creates a prompt's versions in Assay (@langfuse/client) and gives them to
// generations (@langfuse/tracing, exported by @langfuse/otel's span processor), so their spans name
// `langfuse.observation.prompt.name`/`.version`; other traces name the variant the way Agenta's SDK
// does (`ag.refs.*`, sent as plain OTLP). Each revision's traces and production statistics are then
// read through GraphQL.
import { LangfuseClient } from '@langfuse/client';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { startObservation } from '@langfuse/tracing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalId } from '../../src/shared/graphql/ids.js';
import type { TestServer } from '../helpers/server.js';
import { startClientTest, type ClientTestBed } from './helpers/otel-sdk.js';

let bed: ClientTestBed;
let server: TestServer;
let prompts: LangfuseClient;
let variantId: string;
const v1Traces: string[] = [];
const v2Traces: string[] = [];

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

/** A request span with the generation that used `prompt` below it, `seconds` long, at `T0 + at` seconds. */
function request(prompt: { name: string; version: number; isFallback: boolean }, at: number, seconds: number, cost: number): string {
  const start = new Date(T0 + at * 1000);
  const end = new Date(start.getTime() + seconds * 1000);
  const root = startObservation('handle-ticket', { input: { ticket: at } }, { startTime: start });
  startObservation(
    'classify',
    { model: 'gpt-4o-mini', prompt, usageDetails: { input: 10, output: 5 }, costDetails: { total: cost }, output: { role: 'assistant', content: 'billing' } },
    { asType: 'generation', startTime: new Date(start.getTime() + 10), parentSpanContext: root.otelSpan.spanContext() },
  ).end(new Date(end.getTime() - 10));
  root.end(end);
  return root.otelSpan.spanContext().traceId;
}

/** An OTLP/JSON span with Agenta's references, as its SDK sets them on every span of a request. */
function agentaSpan(traceId: string, at: number, seconds: number, refs: Record<string, string | number>) {
  const start = BigInt(T0 + at * 1000) * 1_000_000n;
  const attributes = Object.entries({ 'ag.type.node': 'chat', ...refs }).map(([key, value]) => ({
    key,
    value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value },
  }));
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agenta-app' } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId,
                spanId: traceId.slice(0, 16),
                name: 'chat',
                kind: 1,
                startTimeUnixNano: String(start),
                endTimeUnixNano: String(start + BigInt(seconds * 1e9)),
                attributes,
              },
            ],
          },
        ],
      },
    ],
  };
}

beforeAll(async () => {
  let langfuse!: LangfuseSpanProcessor;
  bed = await startClientTest((baseUrl) => {
    langfuse = new LangfuseSpanProcessor({ publicKey: 'pk-lf-test', secretKey: 'sk-lf-test', baseUrl, environment: 'production', exportMode: 'immediate' });
    return { url: baseUrl, serviceName: 'triage-app', processors: [langfuse], exportToAssay: false };
  });
  ({ server } = bed);
  prompts = new LangfuseClient({ publicKey: 'pk-lf-test', secretKey: 'sk-lf-test', baseUrl: server.baseUrl });

  await prompts.prompt.create({ name: 'triage', prompt: 'Classify: {{ticket}}', config: { model: 'gpt-4o-mini' }, labels: ['production'] });
  await prompts.prompt.create({ name: 'triage', prompt: 'Classify this ticket: {{ticket}}', config: { model: 'gpt-4o-mini' }, labels: ['staging'] });
  const v1 = await prompts.prompt.get('triage', { version: 1, type: 'text' });
  const v2 = await prompts.prompt.get('triage', { label: 'staging', type: 'text' });
  expect([v1.version, v2.version]).toEqual([1, 2]);

  v1Traces.push(request(v1, 0, 1, 0.01), request(v1, 10, 2, 0.01), request(v1, 20, 3, 0.01));
  v2Traces.push(request(v2, 30, 0.5, 0.02));
  await langfuse.forceFlush();

  const [app] = (await server.request('GET', '/apps?app_name=triage')).body as { app_id: string }[];
  variantId = ((await server.request('GET', `/apps/${app.app_id}/variants`)).body as { variant_id: string }[])[0].variant_id;
  const agenta = [
    // By the app's and variant's slugs, in production.
    [
      'a1'.repeat(16),
      40,
      1.5,
      { 'ag.refs.application.slug': 'triage', 'ag.refs.variant.slug': 'triage', 'ag.refs.variant.version': 2, 'ag.refs.environment.slug': 'production' },
    ],
    // By the variant's id, in staging.
    ['a2'.repeat(16), 50, 4, { 'ag.refs.variant.id': variantId, 'ag.refs.variant.version': '2', 'ag.environment': 'staging' }],
    // The same variant name in another app: not this variant's.
    [
      'a3'.repeat(16),
      60,
      1,
      { 'ag.refs.application.slug': 'other', 'ag.refs.variant.slug': 'triage', 'ag.refs.variant.version': 2, 'ag.refs.environment.slug': 'production' },
    ],
  ] as const;
  for (const [traceId, at, seconds, refs] of agenta) {
    expect((await server.request('POST', '/v1/traces', agentaSpan(traceId, at, seconds, refs))).status).toBe(200);
  }
  v2Traces.push(agenta[0][0], agenta[1][0]);
  const scores = v1Traces.map((traceId, index) => ({ trace_id: traceId, name: 'accuracy', value: index / 2 }));
  expect((await server.request('POST', '/scores', [...scores, { trace_id: agenta[0][0], name: 'accuracy', value: 1 }])).status).toBe(200);
});

afterAll(async () => {
  await prompts?.shutdown();
  await bed?.close();
});

const revisionsQuery = `query ($id: ID!) {
  variant(id: $id) {
    revisions {
      revision
      production {
        environment
        traces { count cost totalTokens promptTokens latency { p50 p95 } }
        scores { name count mean }
      }
      stats { traces { count } }
      staging: stats(environment: "staging") { traces { count latency { p50 } } }
      traces(first: 10) { edges { node { traceId environment variantName variantRevision } } }
    }
  }
}`;

describe('traces linked to the revision that produced them', () => {
  it('links Langfuse generations given a prompt, and spans with Agenta references, to the variant revision', async () => {
    const response = await server.graphql(revisionsQuery, { id: globalId('Variant', variantId) });
    expect(response.errors).toBeUndefined();
    const [first, second] = response.data.variant.revisions;
    const ids = (revision: typeof first) => revision.traces.edges.map((edge: { node: { traceId: string } }) => edge.node.traceId);
    expect(ids(first)).toEqual([...v1Traces].reverse());
    expect(ids(second)).toEqual([...v2Traces].reverse());
    // The prompt is named on the generation, below the trace's root: the trace carries it.
    expect(first.traces.edges[0].node).toEqual({ traceId: v1Traces[2], environment: 'production', variantName: 'triage', variantRevision: 1 });
    expect(second.traces.edges[0].node).toMatchObject({ environment: 'staging', variantRevision: 2 });
  });

  it("gives each revision's production traces: count, cost, tokens, latency percentiles and scores, side by side", async () => {
    const response = await server.graphql(revisionsQuery, { id: globalId('Variant', variantId) });
    const [first, second] = response.data.variant.revisions;
    expect(first.production).toEqual({
      environment: 'production',
      traces: { count: 3, cost: 0.03, totalTokens: 45, promptTokens: 30, latency: { p50: 2, p95: 3 } },
      scores: [{ name: 'accuracy', count: 3, mean: 0.5 }],
    });
    expect(second.production).toEqual({
      environment: 'production',
      traces: { count: 2, cost: 0.02, totalTokens: 15, promptTokens: 10, latency: { p50: 0.5, p95: 1.5 } },
      scores: [{ name: 'accuracy', count: 1, mean: 1 }],
    });
    expect(second.stats.traces.count).toBe(3);
    expect(second.staging.traces).toEqual({ count: 1, latency: { p50: 4 } });
  });
});
