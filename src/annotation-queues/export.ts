// A queue's reviewed items exported to a test set (docs/annotation-queues.md#export-to-a-test-set): each done
// item's span mapped by JSONPath as test rows from spans are, each score config a column (the
// reviewers' values combined), and a correction (a completion's TEXT score) as the expected answer. The rows
// are written through testsets' operations and keep their source trace and span.
import { scenarioTraceIds } from '../evaluations/operations.js';
import { getSpan, type SpanRow } from '../observability/traces/trace-reads.js';
import * as scoreConfigs from '../scores/score-configs.js';
import * as scoreReads from '../scores/score-reads.js';
import type { ScoreRow } from '../scores/operations.js';
import type { RequestContext } from '../shared/context.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import { rootSpan, rowsFromSources, type SourcedRow, type WrittenRows } from '../testsets/from-spans.js';
import type { TestsetRowData } from '../testsets/inputs.js';
import { CORRECTION_SCORE, type ExportBody } from './inputs.js';
import { configIdsOf, getQueue, type ItemRow, type QueueRow } from './operations.js';

export interface QueueExport extends WrittenRows {
  /** The queue's reviewed (done) items. */
  matched: number;
  /** Whether there were more reviewed items than `limit` took. */
  capped: boolean;
  /** Reviewed items whose trace or span is gone (retention), left out. */
  skipped: number;
}

type ConfigRow = scoreConfigs.ScoreConfigRow;

/** Several reviewers' scores of one config as one cell: a mean of numbers, the label given most (the first given on a tie), the last text. */
function combined(dataType: string, scores: readonly ScoreRow[]): string | number | null {
  if (dataType === 'NUMERIC') {
    const values = scores.map((score) => score.value).filter((value): value is number => value !== null);
    return values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : null;
  }
  const labels = scores.map((score) => score.stringValue).filter((label): label is string => label !== null && label !== '');
  if (dataType === 'TEXT') return labels.at(-1) ?? null;
  const counts = new Map<string, number>();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  let best: string | null = null;
  for (const [label, count] of counts) if (best === null || count > counts.get(best)!) best = label;
  return best;
}

/** Each item's scores by config (a TEXT score without one by `text:<name>`), in the order its reviewers completed it. */
async function scoresByItem(ctx: RequestContext, items: readonly ItemRow[]): Promise<Map<string, Map<string, ScoreRow[]>>> {
  const annotations = await ctx.db.annotationQueueAnnotation.findMany({
    where: { itemId: { in: items.map((item) => item.id) } },
    orderBy: [{ createdAt: 'asc' }, { annotator: 'asc' }],
  });
  const ids = annotations.flatMap((annotation) => annotation.scoreIds as string[]);
  const { scores } = await scoreReads.listScores(ctx, { ids }, { first: Math.max(ids.length, 1) });
  const byId = new Map(scores.map((score) => [score.id, score]));
  const byItem = new Map<string, Map<string, ScoreRow[]>>();
  for (const annotation of annotations) {
    const byConfig = byItem.get(annotation.itemId) ?? new Map<string, ScoreRow[]>();
    for (const id of annotation.scoreIds as string[]) {
      const score = byId.get(id);
      if (!score) continue;
      const key = score.configId ?? `text:${score.name}`;
      byConfig.set(key, [...(byConfig.get(key) ?? []), score]);
    }
    byItem.set(annotation.itemId, byConfig);
  }
  return byItem;
}

/** The span each item's row is made from (a trace's or a scenario's trace's root span), null when it is gone. */
async function itemSpans(ctx: RequestContext, queue: QueueRow, items: readonly ItemRow[]): Promise<(SpanRow | null)[]> {
  const traces =
    queue.targetType === 'evaluation_scenario'
      ? await scenarioTraceIds(
          ctx,
          items.map((item) => item.targetId),
        )
      : null;
  const spans: (SpanRow | null)[] = [];
  for (const item of items) {
    const traceId = traces ? traces.get(item.targetId) : queue.targetType === 'trace' ? item.targetId : null;
    try {
      if (queue.targetType === 'span') spans.push(await getSpan(ctx, item.targetId, item.traceId));
      else spans.push(traceId ? await rootSpan(ctx, traceId) : null);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      spans.push(null);
    }
  }
  return spans;
}

/** The queue's done items (oldest first, at most `limit`) as test rows; unless `preview`, written to the test set named. */
export async function exportQueue(ctx: RequestContext, queueId: string, body: ExportBody): Promise<QueueExport> {
  const queue = await getQueue(ctx, queueId);
  // A session is many traces; which one is the case is not the queue's to guess.
  if (queue.targetType === 'session') throw ValidationError.at(['body'], 'A session queue cannot be exported: a test case is made from one trace or span');
  const configIds = configIdsOf(queue);
  const byId = new Map((await scoreConfigs.scoreConfigsByIds(ctx, configIds)).map((config) => [config.id, config]));
  const configs = configIds.map((id) => byId.get(id)).filter((config): config is ConfigRow => config !== undefined);

  const [items, matched] = await Promise.all([
    ctx.db.annotationQueueItem.findMany({ where: { queueId, status: 'done' }, orderBy: { id: 'asc' }, take: body.limit }),
    ctx.db.annotationQueueItem.count({ where: { queueId, status: 'done' } }),
  ]);
  if (items.length === 0 && !body.preview) throw ValidationError.at(['body'], 'The queue has no reviewed items yet');
  const [scores, spans] = await Promise.all([scoresByItem(ctx, items), itemSpans(ctx, queue, items)]);

  const sources: SourcedRow[] = [];
  items.forEach((item, index) => {
    const span = spans[index];
    if (!span) return;
    const byConfig = scores.get(item.id) ?? new Map<string, ScoreRow[]>();
    const columns: TestsetRowData = {};
    for (const config of configs) {
      const value = combined(config.dataType, byConfig.get(config.id) ?? []);
      if (value !== null) columns[config.name] = value;
    }
    const correction = combined('TEXT', byConfig.get(`text:${CORRECTION_SCORE}`) ?? []);
    if (correction !== null) columns[body.expected_column] = correction;
    sources.push({ span, columns });
  });
  if (sources.length === 0 && !body.preview) throw ValidationError.at(['body'], "None of the reviewed items' traces or spans is stored any more");
  const destination = body.testset_id !== undefined ? { testsetId: body.testset_id } : { name: body.testset_name! };
  const written = await rowsFromSources(ctx, destination, sources, body.mapping, { preview: body.preview, change: 'rows_from_queue' });
  return { ...written, matched, capped: matched > items.length, skipped: items.length - sources.length };
}
