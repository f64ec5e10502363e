// The judges' provider calls of an online evaluation job, stored as a trace in Assay's own
// environment (docs/online-evaluation.md#jobs).
import { randomId } from '../invocation/ids.js';
import { providerCallSpanFields } from '../invocation/provider-call-span.js';
import { EVALUATION_ENVIRONMENT, type SpanRecord } from '../observability/ingestion/span-record.js';
import type { Outcome } from './evaluator-run.js';
import type { JobRow, RuleRow } from './operations.js';

/** The judges' calls of a job as a trace in Assay's own environment: a root span for the job, a child per call. */
export function judgeSpans(plan: { rule: RuleRow; job: JobRow }, outcome: Outcome, traceId: string, now: Date): SpanRecord[] {
  const { rule, job } = plan;
  const attributes = { 'assay.online.rule_id': rule.id, 'assay.online.job_id': job.id, 'assay.evaluator_config_id': rule.evaluatorConfigId };
  const rootId = randomId(8);
  const startNs = BigInt(outcome.startedAt.getTime()) * 1_000_000n;
  const cost = outcome.calls.reduce((sum, call) => sum + (call.cost?.cost ?? 0), 0);
  const root: SpanRecord = {
    traceId,
    spanId: rootId,
    parentSpanId: null,
    name: `online evaluation: ${rule.name}`,
    spanKind: 'EVALUATOR',
    statusCode: outcome.kind === 'scored' ? 'OK' : 'ERROR',
    statusMessage: outcome.kind === 'scored' ? null : outcome.message,
    startTimeUnixNano: startNs,
    endTimeUnixNano: BigInt(now.getTime()) * 1_000_000n,
    inputs: outcome.kind === 'scored' ? (JSON.parse(JSON.stringify(outcome.variables)) as SpanRecord['inputs']) : null,
    outputs: outcome.kind === 'scored' ? ({ type: outcome.result.type, value: outcome.result.value } as SpanRecord['outputs']) : null,
    environment: EVALUATION_ENVIRONMENT,
    cost,
    costSource: 'computed',
    attributes,
  };
  const children = outcome.calls.map((call): SpanRecord => ({
    traceId,
    spanId: randomId(8),
    parentSpanId: rootId,
    name: `${call.kind} ${call.model}`,
    spanKind: call.kind === 'chat' ? 'LLM' : 'EMBEDDING',
    ...providerCallSpanFields(call),
    environment: EVALUATION_ENVIRONMENT,
    attributes: { ...attributes, 'assay.provider': call.provider, 'assay.attempts': call.attempts },
  }));
  return [root, ...children];
}
