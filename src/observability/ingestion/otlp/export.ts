// The OTLP Export operation, shared by OTLP/HTTP and OTLP/gRPC: prepared spans (prepare-spans.ts) are
// handed to the write queue (../write-queue.ts) and answered once committed, with the rejected spans counted and
// named in the partial success. Both transports reply only once the commit is on disk (wal-sync.ts).
import type { RequestContext } from '../../../shared/context.js';
import { OverloadedError } from '../../../shared/errors.js';
import type { SpanTransport } from '../../../shared/metrics.js';
import type { PreparedOtlp } from './prepare-spans.js';

export interface OtlpIngestResult {
  /** Spans stored (a span sent twice in one request counts once). */
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
  const shown = rejections.slice(0, NAMED_REJECTIONS).join('; ');
  const more = rejections.length > NAMED_REJECTIONS ? `; and ${rejections.length - NAMED_REJECTIONS} more` : '';
  return {
    accepted: written.spans,
    rejected: rejections.length,
    errorMessage: rejections.length === 0 ? '' : `${rejections.length} span${rejections.length === 1 ? '' : 's'} rejected: ${shown}${more}`,
  };
}
