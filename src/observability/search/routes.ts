// REST routes of trace and span search (docs/observability.md#search): listings with filters,
// newest first by default, and the metrics over them.
import type { FastifyInstance } from 'fastify';
import { restRoutes } from '../../shared/http/route.js';
import { spanJsons } from '../traces/trace-reads.js';
import { scoresOf } from '../../scores/score-reads.js';
import { traceScoreValues } from '../../scores/trace-search.js';
import { metricsQuery, metricsScoresQuery, searchFilter, searchQuery, sortOf, traceListQuery } from './inputs.js';
import { searchSpans, searchTraces, spanSortFields, traceSortFields } from './listings.js';
import { spanMetrics, traceMetrics, traceScoreSummaries } from './metrics.js';
import { metricsResponse, scoreSummaryJson, spanListResponse, traceJson, traceListResponse, traceScoreJson } from './responses.js';

const tag = 'observability';
const searchDescription =
  'Filters combine (AND); `spankind` and `status` take comma-separated lists, `scores` a JSON array of score filters. Newest first unless `sort_by` says otherwise.';

export function searchRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.get(
    '/observability/traces',
    { tag, summary: 'Find traces', description: searchDescription, query: searchQuery.extend(traceListQuery.shape), response: traceListResponse },
    async (req, { query }) => {
      const page = await searchTraces(req.ctx, searchFilter(query), sortOf(query, traceSortFields), { first: query.limit, after: query.cursor });
      const traces = page.edges.map((edge) => edge.node);
      const names = query.score_names;
      const scores = names?.length
        ? await scoresOf(
            req.ctx,
            'traceId',
            traces.map((trace) => trace.traceId),
          )
        : null;
      return {
        traces: traces.map((trace, i) => ({
          ...traceJson(trace),
          ...(scores && names ? { scores: traceScoreValues(scores[i], names).map(traceScoreJson) } : {}),
        })),
        next_cursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null,
      };
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
      description: 'With `score_names`, also the summaries of those scores of the matching traces (`of=traces`).',
      query: searchQuery.extend(metricsQuery.shape).extend(metricsScoresQuery.shape),
      response: metricsResponse,
    },
    async (req, { query }) => {
      const filter = searchFilter(query);
      if (query.of === 'spans') return spanMetrics(req.ctx, filter);
      const names = query.score_names;
      const [figures, scores] = await Promise.all([traceMetrics(req.ctx, filter), names?.length ? traceScoreSummaries(req.ctx, filter, names) : null]);
      return scores ? { ...figures, scores: scores.map(scoreSummaryJson) } : figures;
    },
  );
}
