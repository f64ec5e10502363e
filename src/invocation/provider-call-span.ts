// What a span of one provider call (a judge's chat, an embedding) records of it, whoever stores it:
// offline evaluations under a case's span, online rules under a job's (docs/evaluations.md).
import type { SpanRecord } from '../observability/ingestion/span-record.js';
import type { ProviderCallRecord } from '../providers/client.js';

/** The span fields a provider call fills: its status and times, request and reply, model, usage and cost. */
export function providerCallSpanFields(call: ProviderCallRecord) {
  return {
    statusCode: call.error ? 'ERROR' : 'OK',
    statusMessage: call.error,
    startTimeUnixNano: call.startNs,
    endTimeUnixNano: call.endNs,
    inputs: call.request as SpanRecord['inputs'],
    outputs: call.error ? null : ({ output: call.response } as SpanRecord['outputs']),
    model: call.model,
    promptTokens: call.usage?.prompt_tokens ?? null,
    completionTokens: call.usage?.completion_tokens ?? null,
    totalTokens: call.usage?.total_tokens ?? null,
    cachedTokens: call.usage?.cached_tokens ?? null,
    cost: call.cost?.cost ?? null,
    costSource: call.cost?.source ?? null,
  } satisfies Partial<SpanRecord>;
}
