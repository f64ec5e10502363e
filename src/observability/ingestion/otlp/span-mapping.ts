// OTLP spans onto the contract's Span (docs/observability.md#from-attributes-to-the-span), driven by
// the attribute rules of mapping-rules.ts: the rules are compiled once into an index by attribute
// key, each span's attributes are walked once against it, and for each field the first rule (in
// precedence order) whose value reads wins. The raw attributes, events, links, resource and scope
// are stored as sent, whatever was read.
import { nanosToDate } from '../../../shared/time.js';
import type { JsonValue, SpanKind, SpanRecord } from '../span-record.js';
import { amount, count, isObject, parsed, type Attrs } from './attribute-values.js';
import type { JsonObject, OtlpResource, OtlpScope, OtlpSpan } from './decoded-span.js';
import { conventions, defaultReads, type Convention, type Field, type Rule } from './mapping-rules.js';
import {
  aiPromptContent,
  aiResponseContent,
  documentsContent,
  embeddingTexts,
  embeddingsContent,
  eventMessages,
  indexedMessages,
  jsonList,
  langfuseContent,
  messagesContent,
  openInferenceMessages,
  openInferenceTools,
  promptTemplate,
  rerankInput,
  textsContent,
  traceloopContent,
  valueContent,
} from './span-content.js';

// ---------------------------------------------------------------------------------------------
// The compiled rules

interface Slot {
  rule: Rule;
  /** The rule's field as an index of `Matches`. */
  field: number;
  /** The rule's place in precedence order (lower wins). */
  priority: number;
  /** The attribute key, or the prefix (without `.*`) of a prefix rule. */
  key: string;
  prefix: boolean;
}

/** Fields every matching rule adds to (an object), rather than the first one filling. */
const collected = new Set<Field>(['config', 'metadata']);

/** Each field's index in a span's `Matches`, given as rules are compiled. */
const fieldIndex = new Map<Field, number>();
const indexOf = (field: Field) => fieldIndex.get(field) ?? fieldIndex.set(field, fieldIndex.size).get(field)!;

interface Compiled {
  exact: Map<string, Slot[]>;
  prefixes: Map<string, Slot[]>;
  events: Slot[];
  /** Per field, its resource rules in precedence order. */
  resource: Map<Field, Slot[]>;
}

export function compileRules(list: readonly Convention[]): Compiled {
  const compiled: Compiled = { exact: new Map(), prefixes: new Map(), events: [], resource: new Map() };
  let priority = 0;
  for (const convention of list) {
    for (const rule of convention.rules) {
      const prefix = rule.key.endsWith('.*');
      const slot: Slot = { rule, field: indexOf(rule.field), priority: priority++, key: prefix ? rule.key.slice(0, -2) : rule.key, prefix };
      if (rule.key === '@events') compiled.events.push(slot);
      else {
        const index = prefix ? compiled.prefixes : compiled.exact;
        index.set(slot.key, [...(index.get(slot.key) ?? []), slot]);
      }
      if (rule.resource) compiled.resource.set(rule.field, [...(compiled.resource.get(rule.field) ?? []), slot]);
    }
  }
  return compiled;
}

const rules = compileRules(conventions);

// ---------------------------------------------------------------------------------------------
// Reading one rule's value

interface Hit {
  slot: Slot;
  /** The attribute key that matched (for a prefix rule, the full key). */
  key: string;
}

const textValue = (value: JsonValue | undefined): string | null =>
  value === undefined || value === null || value === ''
    ? null
    : typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value);

interface UsageObject {
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
  cachedTokens: number | null;
}

function usageObject(value: JsonValue): UsageObject | undefined {
  const usage = parsed(value);
  if (!isObject(usage)) return undefined;
  const read = (keys: string[]) => count(usage, keys);
  const result = {
    promptTokens: read(['input', 'prompt_tokens', 'promptTokens', 'inputTokens', 'input_tokens']),
    completionTokens: read(['output', 'completion_tokens', 'completionTokens', 'outputTokens', 'output_tokens']),
    totalTokens: read(['total', 'total_tokens', 'totalTokens']),
    cachedTokens: read(['input_cached_tokens', 'cache_read_input_tokens', 'input_cache_read', 'cachedInputTokens', 'cached_tokens']),
  };
  return Object.values(result).some((item) => item !== null) ? result : undefined;
}

function costObject(value: JsonValue): number | null {
  const costs = parsed(value);
  if (!isObject(costs)) return amount({ value: costs ?? null }, ['value']);
  const total = amount(costs, ['total']);
  if (total !== null) return total;
  let sum: number | null = null;
  for (const key in costs) {
    const part = amount(costs, [key]);
    if (part !== null) sum = (sum ?? 0) + part;
  }
  return sum;
}

interface KindHit {
  kind: SpanKind;
  rollUp: boolean;
}

function kindOf(rule: Rule, value: JsonValue): KindHit | undefined {
  const name = isObject(value) ? value.node : value;
  if (typeof name !== 'string') return undefined;
  const lower = name.toLowerCase();
  const kind = rule.kinds?.[lower] ?? rule.kinds?.['*'];
  return kind ? { kind, rollUp: rule.rollUp?.includes(lower) ?? false } : undefined;
}

/** What one rule reads from the attributes; undefined when it gives nothing. */
function read(hit: Hit, attrs: Attrs, span: OtlpSpan | null): unknown {
  const { rule, key: ruleKey, prefix } = hit.slot;
  const value = attrs[hit.key];
  if (!prefix && ruleKey !== '@events' && (value === undefined || value === null || value === '')) return undefined;
  const field = rule.field;
  switch (rule.read ?? defaultReads[field] ?? 'text') {
    case 'text':
      return textValue(value) ?? undefined;
    case 'count':
      return count(attrs, [hit.key]) ?? undefined;
    case 'amount':
      return amount(attrs, [hit.key]) ?? undefined;
    case 'json':
      return parsed(value);
    case 'object': {
      const object = parsed(value);
      return isObject(object) ? object : undefined;
    }
    case 'messages':
      return messagesContent(value);
    case 'openinference-messages':
      return openInferenceMessages(attrs, ruleKey);
    case 'indexed-messages':
      return indexedMessages(attrs, ruleKey);
    case 'event-messages':
      return span ? (field === 'input' ? eventMessages(span.events).input : eventMessages(span.events).output) : undefined;
    case 'value':
      return valueContent(value, field === 'output' ? 'output' : 'input');
    case 'langfuse-io':
      return langfuseContent(attrs, value, field === 'output' ? 'output' : 'input');
    case 'traceloop-io':
      return traceloopContent(attrs, value, field === 'output' ? 'output' : 'input');
    case 'ai-prompt':
      return aiPromptContent(value);
    case 'ai-response':
      return aiResponseContent(attrs);
    case 'texts':
      return textsContent(value);
    case 'embeddings':
      return embeddingsContent(value);
    case 'arguments':
      return { arguments: parsed(value)! };
    case 'result':
      return { result: parsed(value)! };
    case 'documents':
      return documentsContent(attrs, ruleKey);
    case 'embedding-texts':
      return embeddingTexts(attrs, ruleKey);
    case 'rerank-input':
      return rerankInput(attrs, ruleKey);
    case 'json-list':
      return jsonList(value);
    case 'openinference-tools':
      return openInferenceTools(attrs, ruleKey);
    case 'prompt-template':
      return promptTemplate(attrs, ruleKey);
    case 'usage-object':
      return usageObject(value);
    case 'cost-object':
      return costObject(value) ?? undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// One span's matches

/** The rules one attribute set matches, by field index, in precedence order. */
type Matches = (Hit[] | undefined)[];

const hitsOf = (matches: Matches, field: Field): Hit[] | undefined => {
  const index = fieldIndex.get(field);
  return index === undefined ? undefined : matches[index];
};

function addHit(matches: Matches, slot: Slot, key: string): void {
  const hits = matches[slot.field];
  if (!hits) matches[slot.field] = [{ slot, key }];
  // A prefix rule matches once per key under it; the first stands for all, except where every key counts.
  else if (!slot.prefix || collected.has(slot.rule.field) || hits[hits.length - 1].slot !== slot) hits.push({ slot, key });
}

/**
 * The rules an attribute key matches, exact and prefix alike, remembered: a client sends the same
 * keys span after span, so each is looked up once, not sliced at every dot for every span. The
 * memory is bounded (a client inventing keys empties it now and then).
 */
const slotsOfKey = new Map<string, readonly Slot[]>();
const MAX_REMEMBERED_KEYS = 20_000;
const none: readonly Slot[] = [];

function slotsOf(key: string): readonly Slot[] {
  let slots = slotsOfKey.get(key);
  if (slots !== undefined) return slots;
  const found: Slot[] = [...(rules.exact.get(key) ?? [])];
  for (let dot = key.indexOf('.'); dot > 0; dot = key.indexOf('.', dot + 1)) {
    const under = rules.prefixes.get(key.slice(0, dot));
    if (under) found.push(...under);
  }
  slots = found.length > 0 ? found : none;
  if (slotsOfKey.size >= MAX_REMEMBERED_KEYS) slotsOfKey.clear();
  slotsOfKey.set(key, slots);
  return slots;
}

const byPriority = (a: Hit, b: Hit) => a.slot.priority - b.slot.priority;

function match(attrs: Attrs, events: boolean): Matches {
  const matches: Matches = new Array<Hit[] | undefined>(fieldIndex.size);
  for (const key in attrs) {
    const slots = slotsOf(key);
    for (let i = 0; i < slots.length; i++) addHit(matches, slots[i], key);
  }
  if (events) for (const slot of rules.events) addHit(matches, slot, '@events');
  for (const hits of matches) if (hits && hits.length > 1) hits.sort(byPriority);
  return matches;
}

/** The first value the field's rules read, or undefined. */
function firstOf<T>(matches: Matches, field: Field, attrs: Attrs, span: OtlpSpan | null, kind?: SpanKind): T | undefined {
  const hits = hitsOf(matches, field);
  if (!hits) return undefined;
  for (const hit of hits) {
    if (hit.slot.rule.only && hit.slot.rule.only !== kind) continue;
    const value = read(hit, attrs, span);
    if (value !== undefined) return value as T;
  }
  return undefined;
}

/** A collected field's contributions merged, the rule of highest precedence winning a key. */
function collect(matches: Matches, field: Field, attrs: Attrs): JsonValue | undefined {
  const hits = hitsOf(matches, field);
  if (!hits) return undefined;
  let merged: JsonObject | undefined;
  let single: JsonValue | undefined;
  for (let i = hits.length - 1; i >= 0; i--) {
    const hit = hits[i];
    if (hit.slot.prefix) {
      const value = attrs[hit.key];
      if (value === undefined) continue;
      const name = hit.key.slice(hit.slot.key.length + 1);
      (merged ??= {})[field === 'config' ? name.replaceAll('.', '_') : name] = field === 'config' ? value : parsed(value)!;
    } else {
      const value = read(hit, attrs, null) as JsonValue | undefined;
      if (value === undefined) continue;
      if (isObject(value)) merged = { ...(merged ?? {}), ...value };
      else single = value;
    }
  }
  return merged ?? single;
}

// The resource's values of the fields that have resource rules, read once per resource.
const resourceValues = new WeakMap<JsonObject, Map<Field, unknown>>();

function resourceValue(resource: OtlpResource, field: Field): unknown {
  let values = resourceValues.get(resource.attributes);
  if (!values) {
    values = new Map();
    const matches = match(resource.attributes, false);
    for (const resourceField of rules.resource.keys()) {
      const hits = hitsOf(matches, resourceField)?.filter((hit) => hit.slot.rule.resource);
      if (hits?.length) {
        const only: Matches = [];
        only[fieldIndex.get(resourceField)!] = hits;
        const value = firstOf(only, resourceField, resource.attributes, null);
        if (value !== undefined) values.set(resourceField, value);
      }
    }
    resourceValues.set(resource.attributes, values);
  }
  return values.get(field);
}

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

/** The kind the rules give a span's attributes, and whether its usage repeats its descendants'. */
export function spanKindOf(attrs: Attrs): KindHit {
  return kindHit(match(attrs, false), attrs);
}

function kindHit(matches: Matches, attrs: Attrs): KindHit {
  for (const hit of hitsOf(matches, 'kind') ?? []) {
    const value = attrs[hit.key];
    const kind = value === undefined || value === null ? undefined : kindOf(hit.slot.rule, value);
    if (kind) return kind;
  }
  return { kind: 'UNKNOWN', rollUp: false };
}

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
