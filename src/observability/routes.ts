// REST routes of observability (SPEC §7, seed 4.1 and 4.2): validate, call the operation, answer.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { pricingRoutes } from '../pricing/routes.js';
import { parseInput } from '../shared/validation.js';
import { searchQuery, spanReadQuery } from './inputs.js';
import { searchFilter, sortOf } from './search-input.js';
import { searchSpans, searchTraces, spanMetrics, spanSortFields, traceMetrics, traceSortFields, type TraceRow } from './search.js';
import { z } from 'zod';
import { ingestLegacyTrace } from './legacy.js';
import { getSpanJsonText, getTraceTreeText } from './read.js';
import { spanJson } from './shape.js';

/** A trace in listings: its roll-up, without spans (GET /observability/traces/{id} has the tree). */
export function traceJson(trace: TraceRow) {
  return {
    trace_id: trace.traceId,
    root_span_id: trace.rootSpanId,
    name: trace.name,
    spankind: trace.spanKind,
    status: trace.statusCode,
    start_time: trace.startTime.toISOString(),
    end_time: trace.endTime.toISOString(),
    latency: trace.latency,
    span_count: trace.spanCount,
    error_count: trace.errorCount,
    usage: { prompt_tokens: trace.promptTokens, completion_tokens: trace.completionTokens, total_tokens: trace.totalTokens },
    cost: trace.cost,
    environment: trace.environment,
    user_id: trace.userId,
    session_id: trace.sessionId,
    app_id: trace.appId,
    variant: { variant_id: trace.variantId, variant_name: trace.variantName },
  };
}

const metricsQuery = z.object({ of: z.enum(['traces', 'spans']).default('traces') });

/** Span trees come as JSON text, written without recursion (read.ts getTraceTreeText, getSpanJsonText). */
function sendJsonText(reply: FastifyReply, text: string) {
  return reply.type('application/json; charset=utf-8').send(text);
}

export function observabilityRoutes(app: FastifyInstance): void {
  pricingRoutes(app);
  // Listings with filters, newest first by default; `next_cursor` continues the list.
  app.get('/observability/traces', async (req) => {
    const query = parseInput(searchQuery, req.query, 'query');
    const page = await searchTraces(req.ctx, searchFilter(query), sortOf(query, traceSortFields), { first: query.limit, after: query.cursor });
    return { traces: page.edges.map((edge) => traceJson(edge.node)), next_cursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null };
  });
  app.get('/observability/spans', async (req) => {
    const query = parseInput(searchQuery, req.query, 'query');
    const page = await searchSpans(req.ctx, searchFilter(query), sortOf(query, spanSortFields), { first: query.limit, after: query.cursor });
    return { spans: page.edges.map((edge) => spanJson(edge.node, null)), next_cursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null };
  });
  app.get('/observability/metrics', async (req) => {
    const { of } = parseInput(metricsQuery, { of: (req.query as Record<string, unknown>).of }, 'query');
    const filter = searchFilter(parseInput(searchQuery, req.query, 'query'));
    return of === 'spans' ? spanMetrics(req.ctx, filter) : traceMetrics(req.ctx, filter);
  });

  app.post('/observability/trace', async (req) => ingestLegacyTrace(req.ctx, req.body));

  app.get<{ Params: { trace_id: string } }>('/observability/traces/:trace_id', async (req, reply) =>
    sendJsonText(reply, await getTraceTreeText(req.ctx, req.params.trace_id)),
  );

  app.get<{ Params: { span_id: string } }>('/observability/spans/:span_id', async (req, reply) => {
    const query = parseInput(spanReadQuery, req.query, 'query');
    return sendJsonText(reply, await getSpanJsonText(req.ctx, req.params.span_id, query.type, query.trace_id));
  });
}
