// REST routes of trace and span search (docs/observability.md#search): listings with filters,
// newest first by default, and the metrics over them.
import type { FastifyInstance } from 'fastify';
import { restRoutes } from '../../shared/http/route.js';
import { spanJsons } from '../traces/trace-reads.js';
import { metricsQuery, searchFilter, searchQuery, sortOf } from './inputs.js';
import { searchSpans, searchTraces, spanSortFields, traceSortFields } from './listings.js';
import { spanMetrics, traceMetrics } from './metrics.js';
import { metricsResponse, spanListResponse, traceJson, traceListResponse } from './responses.js';

const tag = 'observability';
const searchDescription = 'Filters combine (AND); `spankind` and `status` take comma-separated lists. Newest first unless `sort_by` says otherwise.';

export function searchRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
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
}
