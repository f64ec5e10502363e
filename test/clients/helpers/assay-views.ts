// What Assay shows of a trace a client library sent, read the three ways users read it: the REST
// trace tree, GraphQL's trace, and the UI's span details (its own GraphQL query, with the
// conversation the UI draws from a span's content, web/src/observability/messages.ts).
import { expect } from 'vitest';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { conversationOf, type Conversation } from '../../../web/src/observability/messages.js';
import type { TestServer } from '../../helpers/server.js';
import { weatherAnswer, weatherResult } from './openai-compatible.js';

export interface RestSpan {
  id: string;
  name: string;
  parent_span_id: string | null;
  spankind: string;
  status: string;
  status_message: string | null;
  model: string | null;
  user_id: string | null;
  session_id: string | null;
  environment: string | null;
  metadata: { cost: number | null; usage: { prompt_tokens: number | null; completion_tokens: number | null; total_tokens: number | null } };
  content: { inputs: any; outputs: any; internals: any };
  config: any;
  children: RestSpan[] | null;
}

export interface TraceView {
  traceId: string;
  /** Every span of the REST tree, depth first. */
  spans: RestSpan[];
  /** GraphQL's trace: its sums and spans' own figures. */
  graphql: {
    cost: number | null;
    tokens: { promptTokens: number | null; completionTokens: number | null; totalTokens: number | null };
    spanCount: number;
    errorCount: number;
    sessionId: string | null;
    userId: string | null;
  };
}

/** The trace as REST and GraphQL give it, once it is stored (spans may land in several exports). */
export async function traceView(server: TestServer, traceId: string, spanCount: number): Promise<TraceView> {
  let graphql: TraceView['graphql'] | undefined;
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await server.graphql(
      `query($traceId: String!) { trace(traceId: $traceId) { cost tokens { promptTokens completionTokens totalTokens } spanCount errorCount sessionId userId } }`,
      { traceId },
    );
    graphql = answer.data?.trace ?? undefined;
    if (graphql && graphql.spanCount >= spanCount) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(graphql?.spanCount).toBe(spanCount);
  const response = await server.request('GET', `/observability/traces/${traceId}`);
  expect(response.status).toBe(200);
  const spans: RestSpan[] = [];
  const walk = (span: RestSpan) => {
    spans.push(span);
    for (const child of span.children ?? []) walk(child);
  };
  walk(response.body as RestSpan);
  return { traceId, spans, graphql: graphql! };
}

export interface SpanDetails {
  span: any;
  inputs: Conversation | null;
  outputs: Conversation | null;
}

/** The UI's span details: the fields of its SpanDetails query, and the conversations it draws. */
export async function spanDetails(server: TestServer, traceId: string, spanId: string): Promise<SpanDetails> {
  const answer = await server.graphql(
    `query($traceId: String!, $spanId: String!) { span(traceId: $traceId, spanId: $spanId) {
      spanId parentSpanId name spanKind status statusMessage model costSource cachedTokens environment userId sessionId
      metadata { cost usage { promptTokens completionTokens totalTokens } }
      content { inputs outputs internals } config
    } }`,
    { traceId, spanId },
  );
  expect(answer.errors).toBeUndefined();
  const span = answer.data.span;
  return { span, inputs: conversationOf(span.content.inputs), outputs: conversationOf(span.content.outputs) };
}

/** The spans of a view whose kind is `kind`. */
export const ofKind = (view: TraceView, kind: string) => view.spans.filter((span) => span.spankind === kind);

/** The trace of each root span the library ended, in the order they started, named by `names`. */
export async function viewsByRoot(server: TestServer, spans: ReadableSpan[], names: readonly string[]): Promise<Record<string, TraceView>> {
  const roots = spans.filter((span) => !span.parentSpanContext).sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  expect(roots).toHaveLength(names.length);
  const views: Record<string, TraceView> = {};
  for (const [index, root] of roots.entries()) {
    const traceId = root.spanContext().traceId;
    views[names[index]] = await traceView(server, traceId, spans.filter((span) => span.spanContext().traceId === traceId).length);
  }
  return views;
}

/**
 * The tool loop every library's test makes (openai-compatible.ts): a call answered with a tool
 * call, the tool, a call answered with the weather. Checks the tool span, both calls as the UI
 * draws them, and that the agent span's repeated usage is kept apart and each call counted once.
 */
export async function expectToolLoop(server: TestServer, view: TraceView, toolSpanName: string, inputRoles: string[]): Promise<void> {
  const calls = ofKind(view, 'LLM');
  expect(calls).toHaveLength(2);
  const [toolSpan] = ofKind(view, 'TOOL');
  expect(toolSpan).toMatchObject({
    name: toolSpanName,
    content: { inputs: { arguments: { city: 'Paris' } }, outputs: { result: weatherResult } },
  });
  const first = await spanDetails(server, view.traceId, calls[0].id);
  expect(first.outputs?.messages[0]).toMatchObject({
    role: 'assistant',
    text: null,
    toolCalls: [{ id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
  });
  const second = await spanDetails(server, view.traceId, calls[1].id);
  expect(second.inputs?.messages.map((message) => message.role)).toEqual(inputRoles);
  const tool = second.inputs!.messages[second.inputs!.messages.length - 1];
  expect(tool).toMatchObject({ role: 'tool', text: '{"city":"Paris","forecast":"sunny","celsius":21}', toolCallId: 'call_weather_1' });
  expect(second.outputs?.messages[0].text).toBe(weatherAnswer);
  const agent = await spanDetails(server, view.traceId, view.spans[0].id);
  expect(agent.span).toMatchObject({ spanKind: 'AGENT' });
  expect(agent.span.content.internals.usage_of_descendants).toMatchObject({ prompt_tokens: 40, completion_tokens: 16, total_tokens: 56 });
  expect(view.graphql.tokens).toEqual({ promptTokens: 40, completionTokens: 16, totalTokens: 56 });
  expect(view.graphql.cost).toBeCloseTo(calls[0].metadata.cost! + calls[1].metadata.cost!, 12);
}

/** The sums of the spans' own figures that a trace's totals must equal: every model call once. */
export function ownSums(spans: RestSpan[]): { prompt: number; completion: number; total: number } {
  return spans.reduce(
    (sum, span) => ({
      prompt: sum.prompt + (span.metadata.usage.prompt_tokens ?? 0),
      completion: sum.completion + (span.metadata.usage.completion_tokens ?? 0),
      total: sum.total + (span.metadata.usage.total_tokens ?? 0),
    }),
    { prompt: 0, completion: 0, total: 0 },
  );
}
