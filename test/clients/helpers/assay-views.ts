// What Assay shows of a trace a client library sent, read the three ways users read it: the REST
// trace tree, GraphQL's trace, and the UI's span details (its own GraphQL query, with the
// conversation the UI draws from a span's content, web/src/observability/messages.ts).
import { expect } from 'vitest';
import { conversationOf, type Conversation } from '../../../web/src/observability/messages.js';
import type { TestServer } from '../../helpers/server.js';

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
