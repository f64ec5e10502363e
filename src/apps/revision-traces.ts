// The traces a variant revision produced (docs/deployments.md#traces-of-a-revision): spans name a
// revision by the variant's id or name and the revision's number (ingestion stores them as sent,
// observability rolls them up onto the trace), and apps turns one of its revisions into the
// reference observability's search matches, so neither stores the other's ids.
import type { RequestContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import type { SearchFilter } from '../observability/search/filters.js';
import { searchTraces, type PageArgs } from '../observability/search/listings.js';
import { traceMetrics, traceScoreSummaries, type Metrics } from '../observability/search/metrics.js';
import type { ScoreSummary } from '../scores/trace-search.js';

/** The traces of a revision in one environment (every one but Assay's evaluations when null). */
export async function revisionFilter(ctx: RequestContext, revisionId: string, environment: string | null): Promise<SearchFilter> {
  const row = await ctx.db.variantRevision.findFirst({
    where: { id: revisionId, variant: { projectId: ctx.projectId } },
    select: { revision: true, variant: { select: { id: true, name: true, app: { select: { id: true, name: true } } } } },
  });
  if (!row) throw new NotFoundError('Revision', revisionId);
  const { variant } = row;
  return {
    revision: { variantId: variant.id, variantName: variant.name, app: [variant.app.id, variant.app.name], revision: row.revision },
    ...(environment !== null ? { environment } : {}),
  };
}

export interface RevisionStats {
  environment: string | null;
  traces: Metrics;
  scores: ScoreSummary[];
}

/** Count, cost, tokens, latency percentiles and score summaries of a revision's traces. */
export async function revisionStats(ctx: RequestContext, revisionId: string, environment: string | null): Promise<RevisionStats> {
  const filter = await revisionFilter(ctx, revisionId, environment);
  const [traces, scores] = await Promise.all([traceMetrics(ctx, filter), traceScoreSummaries(ctx, filter, null)]);
  return { environment, traces, scores };
}

/** A revision's traces, newest first, a page at a time. */
export async function revisionTraces(ctx: RequestContext, revisionId: string, environment: string | null, page: PageArgs) {
  return searchTraces(ctx, await revisionFilter(ctx, revisionId, environment), { field: 'start_time', direction: 'desc' }, page);
}
