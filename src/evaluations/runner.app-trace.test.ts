// The app's own trace (docs/evaluations.md#the-apps-own-trace), end to end over HTTP: endpoint
// apps answer as Agenta's SDK does, v2 `{data, trace: {spans}}` and v3 `{version, data, tree}`;
// their spans are stored beneath the call's span in the case's trace, the RAG evaluators read
// the retriever's prompt and contexts there by Agenta's paths (`rag.retriever.internals.prompt`),
// and the call carries `traceparent`, so an app exporting over OTLP lands in the same trace.
// A version 2 code evaluator gets the same spans as a tree. The judge is a local
// OpenAI-compatible server; every request stays on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeEndpoint, startEndpoint, startFakeOpenAI } from '../../test/helpers/endpoints.js';
import {
  createApp,
  createConfig,
  createEndpointVariant,
  createTestset,
  firstCaseResult,
  getScenarios,
  startEvaluation,
  waitForStatus,
} from '../../test/helpers/evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';
import { FAITHFULNESS_PROMPT } from '../evaluators/scorers/rag.js';

const server = useTestServer();
let openai: FakeEndpoint;
let v2: FakeEndpoint;
let v3: FakeEndpoint;
let appId: string;

const movies = ['The Craft (1996): teenage witches.', 'Hocus Pocus (1993): three witch sisters.'];
const report = 'Witches in fiction: The Craft, Hocus Pocus.';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** Agenta v2 (as in Agenta's test_traces.py `simple_rag_trace`): a flat list, parents by id. */
function v2Answer(topic: string) {
  return {
    version: '2.0',
    data: report,
    trace: {
      trace_id: '66a2862603cbee93a25914ad',
      cost: 0.002,
      latency: 1.5,
      usage: null,
      spans: [
        {
          id: 'a1',
          name: 'rag',
          parent_span_id: null,
          inputs: { topic },
          internals: {},
          outputs: {},
          start_time: '2024-07-25T17:06:46.141393Z',
          end_time: '2024-07-25T17:06:52.513890Z',
        },
        {
          id: 'a2',
          name: 'retriever',
          parent_span_id: 'a1',
          inputs: {},
          internals: { prompt: `Movies about ${topic}` },
          outputs: { movies },
          spankind: 'RETRIEVER',
          cost: 0.0001,
          start_time: '2024-07-25T17:06:46.141563Z',
          end_time: '2024-07-25T17:06:46.885700Z',
        },
        {
          id: 'a3',
          name: 'reporter',
          parent_span_id: 'a1',
          inputs: {},
          internals: {},
          outputs: { report },
          start_time: '2024-07-25T17:06:46.885880Z',
          end_time: '2024-07-25T17:06:48.008789Z',
        },
      ],
    },
  };
}

/** Agenta v3 (as in `simple_rag_trace_for_baseresponse_v3`): nested nodes, children by name. */
function v3Answer(topic: string) {
  const node = (id: string, name: string, type: string, parent: string | null, data: Record<string, unknown>, nodes?: Record<string, unknown>) => ({
    root: { id: 'root' },
    node: { id, name, type },
    parent: parent === null ? null : { id: parent },
    time: { start: '2024-11-16T19:21:18.838642', end: '2024-11-16T19:21:25.735744' },
    status: { code: 'UNSET', message: null },
    data,
    metrics: { acc: { costs: { total: 0.0028775 } } },
    ...(nodes && { nodes }),
  });
  return {
    version: '3.0',
    data: report,
    tree: {
      nodes: [
        node(
          'n1',
          'rag',
          'workflow',
          null,
          { inputs: { topic }, outputs: report },
          {
            retriever: node('n2', 'retriever', 'task', 'n1', { internals: { prompt: `Movies about ${topic}` }, outputs: { movies } }),
          },
        ),
      ],
    },
  };
}

beforeAll(async () => {
  openai = await startFakeOpenAI(() => ({ content: '{"score": 0.75}' }));
  // The v2 app also exports a span of its own over OTLP/HTTP, as an app instrumented with
  // OpenTelemetry would, in the trace and under the span its traceparent names.
  v2 = await startEndpoint(async (request) => {
    const [, traceId, parentId] = TRACEPARENT.exec(String(request.headers.traceparent)) ?? [];
    if (traceId) {
      const now = BigInt(Date.now()) * 1_000_000n;
      const span = {
        traceId,
        spanId: '00000000000000ab',
        parentSpanId: parentId,
        name: 'app.otel',
        kind: 1,
        startTimeUnixNano: String(now),
        endTimeUnixNano: String(now + 1000n),
      };
      await server.request('POST', '/v1/traces', { resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans: [span] }] }] });
    }
    return { body: v2Answer(request.body.inputs.topic) };
  });
  v3 = await startEndpoint((request) => ({ body: v3Answer(request.body.inputs.topic) }));
  appId = await createApp(server);
});

afterAll(async () => {
  await Promise.all([openai?.close(), v2?.close(), v3?.close()]);
});

interface TraceNode {
  id: string;
  name: string;
  parent_span_id: string | null;
  spankind: string;
  content: { inputs: unknown; outputs: unknown; internals: unknown };
  children: TraceNode[] | null;
}

/** A span's attributes, through GraphQL (REST shows none). */
async function attributes(traceId: string, spanId: string): Promise<Record<string, unknown>> {
  const answer = await server.graphql('query($s: String!, $t: String!) { span(spanId: $s, traceId: $t) { attributes } }', { s: spanId, t: traceId });
  return answer.data.span.attributes;
}

describe("the app's own trace", () => {
  it("stores v2 and v3 spans beneath the call, reads them by Agenta's paths, and sends traceparent", async () => {
    const variants = await Promise.all([
      createEndpointVariant(server, appId, v2.url, { name: 'agenta-v2' }),
      createEndpointVariant(server, appId, v3.url, { name: 'agenta-v3' }),
    ]);
    const testset = await createTestset(server, [{ topic: 'witches' }]);
    const faithfulness = await createConfig(server, appId, 'rag_faithfulness', {
      question_key: 'rag.retriever.internals.prompt',
      answer_key: 'output',
      contexts_key: 'rag.retriever.outputs.movies',
    });
    const before = openai.requests.length;
    const keys = { OPENAI_API_KEY: 'sk-judge', OPENAI_BASE_URL: openai.url };
    const evaluations = await Promise.all(
      variants.map((variant) =>
        startEvaluation(server, {
          app_id: appId,
          variant_ids: [variant.variant_id],
          evaluators_configs: [faithfulness.id],
          testset_id: testset.id,
          lm_providers_keys: keys,
        }),
      ),
    );
    for (const evaluation of evaluations) expect((await waitForStatus(server, evaluation.id)).status.value).toBe('EVALUATION_FINISHED');

    // The judge was asked with the retriever's prompt and contexts, read from each app's trace.
    const asked = openai.requests.slice(before).map((request) => request.body.messages);
    expect(asked).toHaveLength(2);
    const expected = [
      { role: 'system', content: FAITHFULNESS_PROMPT },
      { role: 'user', content: `Question:\nMovies about witches\n\nContexts:\n[1] ${movies[0]}\n\n[2] ${movies[1]}\n\nAnswer:\n${report}` },
    ];
    expect(asked).toEqual([expected, expected]);

    for (const [index, evaluation] of evaluations.entries()) {
      const [scenario] = await getScenarios(server, evaluation.id);
      expect(scenario.results[0].result).toEqual({ type: 'number', value: 0.75, error: null });
      const trace = await server.request('GET', `/observability/traces/${scenario.trace_id}/`);
      expect(trace.status).toBe(200);
      const call = trace.body as TraceNode;
      expect(call.name).toBe(index === 0 ? 'agenta-v2' : 'agenta-v3');
      const rag = call.children!.find((child) => child.name === 'rag')!;
      expect(rag.parent_span_id).toBe(call.id);
      const retriever = rag.children!.find((child) => child.name === 'retriever')!;
      expect(retriever.content).toMatchObject({ internals: { prompt: 'Movies about witches' }, outputs: { movies } });
      // v2 names its kinds; v3's node type "task" is a CHAIN.
      expect(retriever.spankind).toBe(index === 0 ? 'RETRIEVER' : 'CHAIN');
      const kept = await attributes(scenario.trace_id, retriever.id);
      expect(kept['app.span_id']).toBe(index === 0 ? 'a2' : 'n2');
      if (index === 0) {
        // v2: the third span, and the cost the app reported (kept as an attribute).
        expect(rag.children!.map((child) => child.name).sort()).toEqual(['reporter', 'retriever']);
        expect(kept['app.cost']).toBe(0.0001);
        // The span the app exported over OTLP, in the same trace, under the call's span.
        const otel = call.children!.find((child) => child.name === 'app.otel');
        expect(otel?.parent_span_id).toBe(call.id);
      }
    }

    // Each call carried traceparent naming its case's trace and its own span.
    const sent = [v2.requests.at(-1)!, v3.requests.at(-1)!].map((request) => TRACEPARENT.exec(String(request.headers.traceparent)));
    for (const [index, match] of sent.entries()) {
      const [scenario] = await getScenarios(server, evaluations[index].id);
      expect(match?.[1]).toBe(scenario.trace_id);
      const trace = await server.request('GET', `/observability/traces/${scenario.trace_id}/`);
      expect(match?.[2]).toBe(trace.body.id);
    }
  });

  it("gives a version 2 code evaluator the case's spans as a tree: the call's span, the app's own beneath it", async () => {
    const variant = await createEndpointVariant(server, appId, v2.url, { name: 'agenta-v2-code' });
    const testset = await createTestset(server, [{ topic: 'witches' }]);
    const code = `function evaluate(inputs, output, trace) {
      const rag = trace.spans['agenta-v2-code'].spans.rag;
      const movies = rag.spans.retriever.attributes.ag.data.outputs.movies;
      return movies.length + (inputs.topic === 'witches' ? 0.5 : 0) + (output === ${JSON.stringify(report)} ? 0.25 : 0);
    }`;
    const config = await createConfig(server, appId, 'auto_custom_code_run', { code, runtime: 'javascript', version: '2' });
    const request = { app_id: appId, variant_ids: [variant.variant_id], evaluators_configs: [config.id], testset_id: testset.id };
    expect(await firstCaseResult(server, request)).toEqual({ type: 'number', value: 2.75, error: null });
  });
});
