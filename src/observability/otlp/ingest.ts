// The OTLP ingest operation, shared by OTLP/HTTP and OTLP/gRPC: decoded groups of spans are
// mapped to SpanRecords, handed to the write queue, and answered once committed. Spans that
// cannot be used are counted and named in the partial success.
import type { RequestContext } from '../../shared/context.js';
import type { SpanRecord } from '../ingest.js';
import { ingestQueue } from '../queue.js';
import type { OtlpGroup } from './decode.js';
import { otlpSpanRecord, resourceJson, scopeJson } from './map.js';

export interface OtlpIngestResult {
  /** Spans stored (a span sent twice in one request counts once). */
  accepted: number;
  rejected: number;
  /** Empty when nothing was rejected; else names the rejected spans and why (the first few). */
  errorMessage: string;
}

const NAMED_REJECTIONS = 10;

export async function ingestOtlp(ctx: RequestContext, groups: readonly OtlpGroup[]): Promise<OtlpIngestResult> {
  const records: SpanRecord[] = [];
  const rejections: string[] = [];
  for (const group of groups) {
    const resource = resourceJson(group.resource);
    const scope = scopeJson(group.scope);
    for (const decoded of group.spans) {
      if ('rejected' in decoded) {
        rejections.push(`${decoded.rejected.ref}: ${decoded.rejected.reason}`);
        continue;
      }
      try {
        records.push(otlpSpanRecord(decoded.span, group.resource, resource, scope));
      } catch (error) {
        // The mapper reads whatever a client sent; a span it cannot read is refused, not a 500.
        rejections.push(`span ${decoded.span.spanId} of trace ${decoded.span.traceId}: could not be mapped (${(error as Error).message})`);
      }
    }
  }
  const written = await ingestQueue(ctx.db).submit(ctx, records);
  const shown = rejections.slice(0, NAMED_REJECTIONS).join('; ');
  const more = rejections.length > NAMED_REJECTIONS ? `; and ${rejections.length - NAMED_REJECTIONS} more` : '';
  return {
    accepted: written.spans,
    rejected: rejections.length,
    errorMessage: rejections.length === 0 ? '' : `${rejections.length} span${rejections.length === 1 ? '' : 's'} rejected: ${shown}${more}`,
  };
}
