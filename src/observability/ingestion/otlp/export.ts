// The OTLP Export operations, shared by OTLP/HTTP and OTLP/gRPC: prepared spans (prepare-spans.ts) are
// handed to the write queue (../write-queue.ts) and answered once committed, with the rejected spans counted and
// named in the partial success; log records likewise (ingestOtlpLogs). Both transports reply only once the commit is on disk (wal-sync.ts).
import type { RequestContext } from '../../../shared/context.js';
import { OverloadedError } from '../../../shared/errors.js';
import type { SpanTransport } from '../../../shared/metrics.js';
import { writeLogRecords } from '../log-writer.js';
import type { PreparedLogs } from './prepare-logs.js';
import type { PreparedOtlp } from './prepare-spans.js';

export interface OtlpIngestResult {
  /** Spans (log records) stored (one sent twice in one request counts once). */
  accepted: number;
  rejected: number;
  /** Empty when nothing was rejected; else names the rejected spans and why (the first few). */
  errorMessage: string;
}

const NAMED_REJECTIONS = 10;

export async function ingestOtlp(ctx: RequestContext, transport: SpanTransport, { records, rejections }: PreparedOtlp): Promise<OtlpIngestResult> {
  // Every span sent counts against the key's rate limit (docs/access.md#rate-limits); over it, nothing is stored.
  await ctx.rateLimits.consume(ctx.principal.actor, records.length + rejections.length);
  const written = await ctx.spanQueue.submit(ctx, records).catch((error: unknown) => {
    // Refused whole (the exporter retries): counted apart from the spans it holds that are invalid.
    if (error instanceof OverloadedError) ctx.metrics.countSpans(transport, 0, records.length, 'overloaded');
    throw error;
  });
  ctx.metrics.countSpans(transport, written.spans, rejections.length);
  return { accepted: written.spans, rejected: rejections.length, errorMessage: rejectionMessage('span', rejections) };
}

/** The partial success's message: how many `what`s were rejected, the first few named with why. */
function rejectionMessage(what: string, rejections: readonly string[]): string {
  if (rejections.length === 0) return '';
  const shown = rejections.slice(0, NAMED_REJECTIONS).join('; ');
  const more = rejections.length > NAMED_REJECTIONS ? `; and ${rejections.length - NAMED_REJECTIONS} more` : '';
  return `${rejections.length} ${what}${rejections.length === 1 ? '' : 's'} rejected: ${shown}${more}`;
}

/**
 * The OTLP logs Export operation (docs/observability.md#otlp-logs): the records that name a span
 * are stored and joined with it (../log-writer.ts), the others named in the partial success.
 * Records count against the key's rate limit as spans do.
 */
export async function ingestOtlpLogs(ctx: RequestContext, { rows, rejections }: PreparedLogs): Promise<OtlpIngestResult> {
  await ctx.rateLimits.consume(ctx.principal.actor, rows.length + rejections.length);
  const written = await writeLogRecords(ctx, rows);
  return { accepted: written.records, rejected: rejections.length, errorMessage: rejectionMessage('log record', rejections) };
}
