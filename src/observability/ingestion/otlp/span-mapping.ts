// OTLP spans onto the contract's Span (docs/observability.md#from-attributes-to-the-span): each
// span's attributes are matched once against the compiled rules (rule-matching.ts), each field
// taking the first rule (in precedence order) whose value reads (rule-reads.ts). The raw
// attributes, events, links, resource and scope are stored as sent, whatever was read.
import { nanosToDate } from '../../../shared/time.js';
import type { JsonValue, SpanKind, SpanRecord } from '../span-record.js';
import { isObject } from './attribute-values.js';
import type { JsonObject, OtlpResource, OtlpScope, OtlpSpan } from './decoded-span.js';
import type { Field } from './mapping-rules.js';
import { collect, firstOf, kindHit, match, resourceValue } from './rule-matching.js';
import type { UsageObject } from './rule-reads.js';

// ---------------------------------------------------------------------------------------------
// The SpanRecord

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
  const matches = match(attrs, span.events.length > 0);
  const one = <T>(field: Field, kind?: SpanKind) => firstOf<T>(matches, field, attrs, span, kind);
  const withResource = (field: Field) => (one<string>(field) ?? (resourceValue(resource, field) as string | undefined)) || null;

  const { kind, rollUp } = kindHit(matches, attrs);

  // config, model
  const collectedConfig = collect(matches, 'config', attrs);
  const invocation = isObject(collectedConfig) ? collectedConfig : undefined;
  const requestModel = one<string>('requestModel') ?? (typeof invocation?.model === 'string' ? invocation.model : null);
  const provider = one<string>('provider');
  const config: JsonObject = {};
  if (requestModel !== null) config.model = requestModel;
  if (provider !== undefined) config.provider = provider;
  if (invocation) Object.assign(config, invocation);

  // usage, cost
  const usage = one<UsageObject>('usage');
  const promptTokens = one<number>('promptTokens') ?? usage?.promptTokens ?? null;
  const completionTokens = one<number>('completionTokens') ?? usage?.completionTokens ?? null;
  const totalTokens =
    one<number>('totalTokens') ??
    usage?.totalTokens ??
    (promptTokens === null && completionTokens === null ? null : (promptTokens ?? 0) + (completionTokens ?? 0));
  const cachedTokens = one<number>('cachedTokens') ?? usage?.cachedTokens ?? null;
  const cost = one<number>('cost') ?? null;

  // content
  const system = one<JsonValue>('system');
  let inputs = one<JsonValue>('input', kind);
  if (system !== undefined) {
    if (isObject(inputs) && Array.isArray(inputs.messages)) inputs = { ...inputs, system_instructions: system };
    else if (inputs === undefined) inputs = { system_instructions: system };
  }
  const outputs = one<JsonValue>('output', kind);

  const internals: JsonObject = {};
  const template = one<JsonValue>('promptTemplate');
  if (template !== undefined) internals.prompt_template = template;
  const tools = one<JsonValue>('tools');
  if (tools !== undefined) internals.tools = tools;
  if (kind === 'TOOL') {
    const tool: JsonObject = {};
    for (const [key, field] of [
      ['name', 'toolName'],
      ['description', 'toolDescription'],
      ['call_id', 'toolCallId'],
      ['type', 'toolType'],
    ] as const) {
      const value = one<string>(field);
      if (value !== undefined) tool[key] = value;
    }
    if (Object.keys(tool).length > 0) internals.tool = tool;
  }
  const metadata = collect(matches, 'metadata', attrs);
  if (metadata !== undefined) internals.metadata = metadata;
  const tags = one<JsonValue>('tags');
  if (tags !== undefined) internals.tags = tags;
  const finishReasons = one<JsonValue>('finishReasons');
  if (finishReasons !== undefined) internals.finish_reasons = finishReasons;
  const responseId = one<string>('responseId');
  if (responseId !== undefined) internals.response_id = responseId;
  const level = one<string>('level');
  if (level !== undefined) internals.level = level;
  for (const [key, field] of [
    ['release', 'release'],
    ['version', 'version'],
  ] as const) {
    const value = withResource(field);
    if (value !== null) internals[key] = value;
  }
  const exception = span.events.find((event) => event.name === 'exception');
  if (exception) {
    internals.exception = {
      type: exception.attributes['exception.type'] ?? null,
      message: exception.attributes['exception.message'] ?? null,
      stacktrace: exception.attributes['exception.stacktrace'] ?? null,
    };
  }
  // A span whose usage repeats its descendants' keeps it here, out of the trace's sums
  // (docs/instrumentation.md#roll-ups).
  const rolledUp = rollUp && (totalTokens !== null || cost !== null);
  if (rolledUp) {
    internals.usage_of_descendants = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: totalTokens,
      ...(cachedTokens !== null ? { cached_tokens: cachedTokens } : {}),
      ...(cost !== null ? { cost } : {}),
    };
  }

  const revision = withResource('variantRevision');
  const revisionNumber = typeof revision === 'string' && /^\d+$/.test(revision) ? Number(revision) : null;
  const statusCode = statuses[span.statusCode] ?? 'UNSET';
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    spanKind: kind,
    statusCode: statusCode === 'UNSET' && level?.toUpperCase() === 'ERROR' ? 'ERROR' : statusCode,
    statusMessage: span.statusMessage || one<string>('statusMessage') || null,
    startTimeUnixNano: span.startTimeUnixNano,
    endTimeUnixNano: span.endTimeUnixNano,
    inputs: inputs ?? null,
    outputs: outputs ?? null,
    internals: Object.keys(internals).length > 0 ? internals : null,
    config: Object.keys(config).length > 0 ? config : null,
    environment: withResource('environment'),
    userId: withResource('userId'),
    sessionId: withResource('sessionId'),
    appId: withResource('appId'),
    variantId: withResource('variantId'),
    variantName: withResource('variantName'),
    variantRevision: revisionNumber !== null && Number.isSafeInteger(revisionNumber) ? revisionNumber : null,
    model: one<string>('model') ?? requestModel,
    promptTokens: rolledUp ? null : promptTokens,
    completionTokens: rolledUp ? null : completionTokens,
    totalTokens: rolledUp ? null : totalTokens,
    cachedTokens: rolledUp ? null : cachedTokens,
    cost: rolledUp ? null : cost,
    attributes: attrs,
    events: eventsJson(span),
    links: linksJson(span),
    resource: resourceJsonValue,
    scope: scopeJsonValue,
  };
}
