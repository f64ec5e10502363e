// A rule's preview (docs/online-evaluation.md): the rule run once on one trace, nothing stored.
import { getTrace, listTraceSpans } from '../observability/traces/trace-reads.js';
import type { SearchFilter } from '../observability/search/filters.js';
import type { RequestContext } from '../shared/context.js';
import { runEvaluator } from './evaluator-run.js';
import type { RuleMapping, RuleTarget } from './inputs.js';
import { evaluatorVariables } from './mapping.js';
import { type JobRow, checkConfig, targetMatches } from './operations.js';
import type { PreviewJson } from './responses.js';
import { loadTarget } from './target-loading.js';

/** What a preview evaluates: a saved rule's fields or an unsaved rule's. */
export interface PreviewedRule {
  target: RuleTarget;
  filter: SearchFilter;
  mapping: RuleMapping | null;
  evaluatorConfigId: string;
}

/**
 * Runs a rule on one trace as it would run online and stores nothing: the target it would take
 * there (a span target: the first matching span, else the root), whether it matches, the variables
 * sent and the evaluator's result.
 */
export async function previewRule(ctx: RequestContext, timeoutMs: number, rule: PreviewedRule, traceId: string, signal: AbortSignal): Promise<PreviewJson> {
  const config = await checkConfig(ctx, rule.evaluatorConfigId);
  const trace = await getTrace(ctx, traceId);
  let ids: Pick<JobRow, 'traceId' | 'spanId' | 'sessionId'> = { traceId, spanId: null, sessionId: trace.sessionId };
  if (rule.target === 'span') {
    const spans = await listTraceSpans(ctx, traceId, { select: { spanId: true, parentSpanId: true } });
    let chosen = spans.find((span) => span.parentSpanId === null) ?? spans[0];
    for (const span of spans) {
      if (await targetMatches(ctx, 'span', rule.filter, { ...ids, spanId: span.spanId })) {
        chosen = span;
        break;
      }
    }
    ids = { ...ids, spanId: chosen?.spanId ?? null };
  }
  if (rule.target === 'session' && !trace.sessionId) {
    return { matches: false, target: null, variables: null, result: null, cost: 0 };
  }
  const matches = await targetMatches(ctx, rule.target, rule.filter, ids);
  const target = await loadTarget(ctx, rule.target, ids);
  if (!target) return { matches: false, target: null, variables: null, result: null, cost: 0 };
  const variables = evaluatorVariables(target.document, rule.mapping);
  const outcome = await runEvaluator(ctx, timeoutMs, ctx, config, variables, target.views, signal);
  const result =
    outcome.kind === 'scored'
      ? { type: outcome.result.type, value: outcome.result.value, error: null }
      : { type: 'error', value: null, error: { message: outcome.message, stacktrace: null } };
  return {
    matches,
    target: { type: rule.target, trace_id: ids.traceId, span_id: ids.spanId, session_id: rule.target === 'session' ? trace.sessionId : null },
    variables: JSON.parse(JSON.stringify({ ...variables, expected: variables.expected ?? null })) as PreviewJson['variables'],
    result,
    cost: outcome.calls.reduce((sum, call) => sum + (call.cost?.cost ?? 0), 0),
  };
}
