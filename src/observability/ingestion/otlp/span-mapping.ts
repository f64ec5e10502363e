// OTLP spans onto the contract's Span (docs/observability.md#from-attributes-to-the-span): the
// OpenInference and OpenTelemetry GenAI semantic conventions (current and older forms) and Agenta's
// `ag.*` keys are read into spankind, status, content (span-content.ts), metadata, config, user,
// session, environment, app and variant. The raw attributes, events, links, resource and scope are
// stored as sent, whatever was read.
import { nanosToDate } from '../../../shared/time.js';
import { spanKinds, type JsonValue, type SpanKind, type SpanRecord } from '../span-record.js';
import { amount, count, first, isObject, parsed, text, type Attrs } from './attribute-values.js';
import type { JsonObject, OtlpResource, OtlpScope, OtlpSpan } from './decoded-span.js';
import { contentOf } from './span-content.js';

// ---------------------------------------------------------------------------------------------
// spankind

const agentaTypes: Record<string, SpanKind> = {
  workflow: 'WORKFLOW',
  task: 'CHAIN',
  chain: 'CHAIN',
  tool: 'TOOL',
  embedding: 'EMBEDDING',
  query: 'RETRIEVER',
  retriever: 'RETRIEVER',
  completion: 'LLM',
  chat: 'LLM',
  llm: 'LLM',
  rerank: 'RERANKER',
  agent: 'AGENT',
};

const genAiOperations: Record<string, SpanKind> = {
  chat: 'LLM',
  text_completion: 'LLM',
  generate_content: 'LLM',
  completion: 'LLM',
  embeddings: 'EMBEDDING',
  embedding: 'EMBEDDING',
  execute_tool: 'TOOL',
  create_agent: 'AGENT',
  invoke_agent: 'AGENT',
  invoke_workflow: 'WORKFLOW',
  retrieval: 'RETRIEVER',
  retrieve: 'RETRIEVER',
  rerank: 'RERANKER',
  guardrail: 'GUARDRAIL',
  evaluate: 'EVALUATOR',
};

const traceloopKinds: Record<string, SpanKind> = { workflow: 'WORKFLOW', task: 'CHAIN', agent: 'AGENT', tool: 'TOOL' };

const known = new Set<string>(spanKinds);

export function spanKindOf(attrs: Attrs): SpanKind {
  const openinference = attrs['openinference.span.kind'];
  if (typeof openinference === 'string') {
    const kind = openinference.toUpperCase();
    if (known.has(kind)) return kind as SpanKind;
    if (kind === 'PROMPT') return 'CHAIN';
  }
  const agType = attrs['ag.type.node'] ?? (isObject(attrs['ag.type']) ? attrs['ag.type'].node : attrs['ag.type']);
  if (typeof agType === 'string') {
    const kind = agentaTypes[agType.toLowerCase()] ?? (known.has(agType.toUpperCase()) ? (agType.toUpperCase() as SpanKind) : undefined);
    if (kind) return kind;
  }
  const operation = attrs['gen_ai.operation.name'];
  if (typeof operation === 'string') {
    const kind = genAiOperations[operation.toLowerCase()];
    if (kind) return kind;
  }
  const traceloop = attrs['traceloop.span.kind'];
  if (typeof traceloop === 'string' && traceloopKinds[traceloop.toLowerCase()]) return traceloopKinds[traceloop.toLowerCase()];
  const requestType = attrs['llm.request.type'];
  if (requestType === 'embedding') return 'EMBEDDING';
  if (typeof operation === 'string' || requestType !== undefined) return 'LLM';
  if (attrs['gen_ai.request.model'] !== undefined || attrs['gen_ai.system'] !== undefined || attrs['llm.model_name'] !== undefined) return 'LLM';
  return 'UNKNOWN';
}

// ---------------------------------------------------------------------------------------------
// config, model, usage, cost

const GEN_AI_REQUEST = 'gen_ai.request.';

function configOf(attrs: Attrs): { config: JsonObject | null; requestModel: string | null } {
  const invocation = parsed(attrs['llm.invocation_parameters']);
  const config: JsonObject = {};
  const requestModel =
    text([attrs], ['gen_ai.request.model', 'llm.model_name', 'embedding.model_name']) ??
    (isObject(invocation) && typeof invocation.model === 'string' ? invocation.model : null);
  if (requestModel !== null) config.model = requestModel;
  const provider = text([attrs], ['gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system']);
  if (provider !== null) config.provider = provider;
  if (isObject(invocation)) Object.assign(config, invocation);
  for (const key in attrs) {
    if (key.startsWith(GEN_AI_REQUEST) && key !== 'gen_ai.request.model') config[key.slice(GEN_AI_REQUEST.length).replaceAll('.', '_')] = attrs[key]!;
  }
  return { config: Object.keys(config).length > 0 ? config : null, requestModel };
}

function usageOf(attrs: Attrs) {
  const promptTokens = count(attrs, ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt', 'llm.usage.prompt_tokens']);
  const completionTokens = count(attrs, [
    'gen_ai.usage.output_tokens',
    'gen_ai.usage.completion_tokens',
    'llm.token_count.completion',
    'llm.usage.completion_tokens',
  ]);
  const totalTokens =
    count(attrs, ['llm.token_count.total', 'gen_ai.usage.total_tokens', 'llm.usage.total_tokens']) ??
    (promptTokens === null && completionTokens === null ? null : (promptTokens ?? 0) + (completionTokens ?? 0));
  const cachedTokens = count(attrs, [
    'gen_ai.usage.cache_read.input_tokens',
    'gen_ai.usage.cache_read_input_tokens',
    'llm.token_count.prompt_details.cache_read',
  ]);
  return { promptTokens, completionTokens, totalTokens, cachedTokens };
}

// ---------------------------------------------------------------------------------------------

function eventsJson(span: OtlpSpan): JsonValue | null {
  if (span.events.length === 0 && span.droppedEventsCount === 0) return null;
  return span.events.map((event) => ({
    name: event.name,
    time: nanosToDate(event.timeUnixNano).toISOString(),
    time_unix_nano: event.timeUnixNano.toString(),
    attributes: event.attributes,
    ...(event.droppedAttributesCount ? { dropped_attributes_count: event.droppedAttributesCount } : {}),
  }));
}

function linksJson(span: OtlpSpan): JsonValue | null {
  if (span.links.length === 0) return null;
  return span.links.map((link) => ({
    trace_id: link.traceId,
    span_id: link.spanId,
    trace_state: link.traceState,
    flags: link.flags,
    attributes: link.attributes,
    ...(link.droppedAttributesCount ? { dropped_attributes_count: link.droppedAttributesCount } : {}),
  }));
}

export function resourceJson(resource: OtlpResource): JsonObject {
  return {
    attributes: resource.attributes,
    ...(resource.droppedAttributesCount ? { dropped_attributes_count: resource.droppedAttributesCount } : {}),
    ...(resource.schemaUrl ? { schema_url: resource.schemaUrl } : {}),
  };
}

export function scopeJson(scope: OtlpScope): JsonObject {
  return {
    name: scope.name,
    version: scope.version,
    attributes: scope.attributes,
    ...(scope.droppedAttributesCount ? { dropped_attributes_count: scope.droppedAttributesCount } : {}),
    ...(scope.schemaUrl ? { schema_url: scope.schemaUrl } : {}),
  };
}

const statuses = ['UNSET', 'OK', 'ERROR'] as const;

/**
 * One OTLP span as a SpanRecord. `resource` and `scope` are the JSON forms of the span's resource
 * and scope (built once per group and shared by its spans).
 */
export function otlpSpanRecord(span: OtlpSpan, resource: OtlpResource, resourceJsonValue: JsonValue, scopeJsonValue: JsonValue): SpanRecord {
  const attrs = span.attributes;
  const both = [attrs, resource.attributes];
  const kind = spanKindOf(attrs);
  const { config, requestModel } = configOf(attrs);
  const usage = usageOf(attrs);
  const content = contentOf(span, kind);
  const revision = first(both, ['assay.variant.revision', 'variant.revision', 'ag.refs.variant.version']);
  const revisionNumber = typeof revision === 'string' && /^\d+$/.test(revision) ? Number(revision) : revision;
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    spanKind: kind,
    statusCode: statuses[span.statusCode] ?? 'UNSET',
    statusMessage: span.statusMessage || null,
    startTimeUnixNano: span.startTimeUnixNano,
    endTimeUnixNano: span.endTimeUnixNano,
    inputs: content.inputs,
    outputs: content.outputs,
    internals: content.internals,
    config,
    environment: text(both, ['deployment.environment.name', 'deployment.environment', 'environment', 'ag.environment', 'langfuse.environment']),
    userId: text(both, ['user.id', 'enduser.id', 'ag.user.id', 'langfuse.user.id']),
    sessionId: text(both, ['session.id', 'gen_ai.conversation.id', 'ag.session.id', 'langfuse.session.id', 'ai.telemetry.metadata.sessionId']),
    appId: text(both, ['assay.app.id', 'app.id', 'ag.refs.application.id']),
    variantId: text(both, ['assay.variant.id', 'variant.id', 'ag.refs.variant.id']),
    variantName: text(both, ['assay.variant.name', 'variant.name', 'ag.refs.variant.slug']),
    variantRevision: typeof revisionNumber === 'number' && Number.isSafeInteger(revisionNumber) ? revisionNumber : null,
    model: text([attrs], ['gen_ai.response.model', 'llm.response.model']) ?? requestModel,
    ...usage,
    cost: amount(attrs, ['llm.cost.total', 'gen_ai.usage.cost', 'ag.metrics.unit.costs.total']),
    attributes: attrs,
    events: eventsJson(span),
    links: linksJson(span),
    resource: resourceJsonValue,
    scope: scopeJsonValue,
  };
}
