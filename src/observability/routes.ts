// REST routes of observability (docs/observability.md, docs/contract.md 4.1 and 4.2): validate,
// call the operation, answer.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { pricingRoutes } from '../pricing/routes.js';
import { restRoutes } from '../shared/http/route.js';
import { legacyTraceInput, searchQuery, spanReadQuery } from './inputs.js';
import { searchFilter, sortOf } from './search-input.js';
import { searchSpans, searchTraces, spanMetrics, spanSortFields, traceMetrics, traceSortFields, type TraceRow } from './search.js';
import { z } from 'zod';
import { countRejectedLegacy, ingestLegacyTrace } from './legacy.js';
import { getSpanJsonText, getTraceTreeText, spanJsons } from './read.js';
import { deleteTrace, deleteUserSpans } from './deletion.js';
import { deletedSpansResponse, legacyIngestResponse, metricsResponse, spanListResponse, spanResponse, traceListResponse } from './responses.js';

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

const tag = 'observability';
const searchDescription = 'Filters combine (AND); `spankind` and `status` take comma-separated lists. Newest first unless `sort_by` says otherwise.';

export function observabilityRoutes(app: FastifyInstance): void {
  pricingRoutes(app);
  const rest = restRoutes(app);
  // Listings with filters, newest first by default; `next_cursor` continues the list.
  rest.get(
    '/observability/traces',
    { tag, summary: 'Find traces', description: searchDescription, query: searchQuery, response: traceListResponse },
    async (req, { query }) => {
      const page = await searchTraces(req.ctx, searchFilter(query), sortOf(query, traceSortFields), { first: query.limit, after: query.cursor });
      return { traces: page.edges.map((edge) => traceJson(edge.node)), next_cursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null };
    },
  );
  rest.get(
    '/observability/spans',
    { tag, summary: 'Find spans', description: searchDescription, query: searchQuery, response: spanListResponse },
    async (req, { query }) => {
      const page = await searchSpans(req.ctx, searchFilter(query), sortOf(query, spanSortFields), { first: query.limit, after: query.cursor });
      const spans = await spanJsons(
        req.ctx,
        page.edges.map((edge) => edge.node),
      );
      return { spans, next_cursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null };
    },
  );
  rest.get(
    '/observability/metrics',
    {
      tag,
      summary: 'Counts, error rate, cost, tokens and latency percentiles of the matching traces or spans',
      query: searchQuery.extend(metricsQuery.shape),
      response: metricsResponse,
    },
    async (req, { query }) => {
      const filter = searchFilter(query);
      return query.of === 'spans' ? spanMetrics(req.ctx, filter) : traceMetrics(req.ctx, filter);
    },
  );

  rest.post(
    '/observability/trace',
    {
      tag,
      summary: 'Store spans of a trace (JSON; OTLP is at /v1/traces)',
      scope: 'ingest',
      description: 'Spans may arrive before their parents, in any number of requests; a span sent again replaces the stored one.',
      body: legacyTraceInput,
      response: legacyIngestResponse,
      examples: {
        agent: {
          trace: '4bf92f3577b34da6a3ce929d0e0e4736',
          spans: [
            { id: '00f067aa0ba902b7', name: 'agent', spankind: 'AGENT', start_time: '2026-11-22T10:00:00Z', end_time: '2026-11-22T10:00:02Z' },
            {
              id: '00f067aa0ba902b8',
              parent_span_id: '00f067aa0ba902b7',
              name: 'llm',
              spankind: 'LLM',
              start_time: '2026-11-22T10:00:00.5Z',
              end_time: '2026-11-22T10:00:01.5Z',
              tokens: { prompt_tokens: 12, completion_tokens: 3 },
              cost: 0.0001,
            },
          ],
        },
      },
    },
    async (req, { body }) => ingestLegacyTrace(req.ctx, body),
    { onInvalid: (req) => countRejectedLegacy(req.ctx, req.body) },
  );

  rest.get(
    '/observability/traces/:trace_id',
    { tag, summary: 'A trace: its earliest top-level span with every descendant in `children`', response: spanResponse, errors: [404] },
    async (req, { params }, reply) => sendJsonText(reply, await getTraceTreeText(req.ctx, params.trace_id)),
  );

  rest.get(
    '/observability/spans/:span_id',
    {
      tag,
      summary: 'A span: with its subtree (`type=generation`) or alone (`type=span`)',
      query: spanReadQuery,
      response: spanResponse,
      errors: [404],
    },
    async (req, { params, query }, reply) => sendJsonText(reply, await getSpanJsonText(req.ctx, params.span_id, query.type, query.trace_id)),
  );

  rest.delete(
    '/observability/traces/:trace_id',
    { tag, summary: 'Delete a trace: every span and its summary', noContent: true, errors: [404] },
    async (req, { params }) => {
      await deleteTrace(req.ctx, params.trace_id);
    },
  );

  rest.delete(
    '/observability/users/:user_id',
    {
      tag,
      summary: 'Delete every span of a user (a privacy request): traces left empty go, the others are summed again',
      description: 'Answers what was deleted; 404 when the project holds no span of that user.',
      response: deletedSpansResponse,
      errors: [404],
    },
    (req, { params }) => deleteUserSpans(req.ctx, params.user_id),
  );
}
