// OTLP spans onto the contract's Span (docs/observability.md#from-attributes-to-the-span): the
// OpenInference and OpenTelemetry GenAI semantic conventions (current and older forms) and Agenta's
// `ag.*` keys are read into spankind, status, content, metadata, config, user, session,
// environment, app and variant. The raw attributes, events, links, resource and scope are stored as
// sent, whatever was read.
import { nanosToDate } from '../../shared/time.js';
import { spanKinds, type JsonValue, type SpanKind, type SpanRecord } from '../ingest.js';
import type { JsonObject, OtlpResource, OtlpScope, OtlpSpan } from './decode.js';

type Attrs = JsonObject;

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** JSON text (an object or array) parsed, anything else as it is. */
function parsed(value: JsonValue | undefined): JsonValue | undefined {
  if (typeof value !== 'string') return value;
  const text = value.trimStart();
  if (text[0] !== '{' && text[0] !== '[') return value;
  try {
    return JSON.parse(value) as JsonValue;
  } catch {
    return value;
  }
}

function first(sources: Attrs[], keys: readonly string[]): JsonValue | undefined {
  for (const source of sources) {
    for (const key of keys) {
      const value = source[key];
      if (value !== undefined && value !== null && value !== '') return value;
    }
  }
  return undefined;
}

function text(sources: Attrs[], keys: readonly string[]): string | null {
  const value = first(sources, keys);
  if (value === undefined) return null;
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** A count: an integer ≥ 0 given as a number or a decimal string. */
function count(attrs: Attrs, keys: readonly string[]): number | null {
  for (const key of keys) {
    const value = attrs[key];
    const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof number === 'number' && Number.isSafeInteger(number) && number >= 0) return number;
  }
  return null;
}

function amount(attrs: Attrs, keys: readonly string[]): number | null {
  for (const key of keys) {
    const value = attrs[key];
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number === 'number' && Number.isFinite(number) && number >= 0) return number;
  }
  return null;
}

/**
 * The attributes under `prefix.` as one nested value: `p.0.message.role` → `[{message: {role}}]`.
 * Objects whose keys are all indexes become arrays (in index order). Undefined when none.
 */
export function unflatten(attrs: Attrs, prefix: string): JsonValue | undefined {
  const head = `${prefix}.`;
  let root: JsonObject | undefined;
  let created!: Set<JsonObject>;
  for (const key in attrs) {
    if (!key.startsWith(head)) continue;
    const path = key.slice(head.length).split('.');
    if (!root) created = new Set([(root = {})]);
    let node: JsonObject = root;
    let ok = true;
    for (let i = 0; i < path.length - 1; i++) {
      const next = node[path[i]];
      if (next === undefined) {
        node = node[path[i]] = {};
        created.add(node);
      } else if (isObject(next) && created.has(next)) node = next;
      else {
        ok = false; // a leaf already sits where this key needs a branch: the raw attributes keep it
        break;
      }
    }
    const last = path[path.length - 1];
    if (ok && !created.has(node[last] as JsonObject)) node[last] = attrs[key]!;
  }
  return root === undefined ? undefined : arrays(root, created);
}

/** Index-keyed objects built by `unflatten` to arrays (values the client sent are left alone). */
function arrays(value: JsonValue, created: Set<JsonObject>): JsonValue {
  if (!isObject(value) || !created.has(value)) return value;
  const keys = Object.keys(value);
  for (const key of keys) value[key] = arrays(value[key], created);
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((key) => value[key]!);
  }
  return value;
}

/** `[{message: {...}}]` → `[{...}]`, the wrapper OpenInference puts around each item. */
function unwrap(list: JsonValue | undefined, wrapper: string): JsonValue[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((item) => (isObject(item) && isObject(item[wrapper]) ? unwrapMessage(item[wrapper]) : item));
}

function unwrapMessage(message: JsonObject): JsonObject {
  const out: JsonObject = { ...message };
  if (Array.isArray(out.contents)) out.contents = unwrap(out.contents, 'message_content')!;
  if (Array.isArray(out.tool_calls)) out.tool_calls = unwrap(out.tool_calls, 'tool_call')!;
  return out;
}

/** GenAI messages with `parts` get a `content` text when every part is text, for easy reading. */
function withContent(messages: JsonValue[]): JsonValue[] {
  return messages.map((message) => {
    if (!isObject(message) || message.content !== undefined || !Array.isArray(message.parts)) return message;
    const texts = message.parts.map((part) => (isObject(part) && part.type === 'text' && typeof part.content === 'string' ? part.content : null));
    return texts.every((part) => part !== null) ? { ...message, content: texts.join('') } : message;
  });
}

const roleOfEvent: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

/** Messages carried by span events (GenAI's event form and the older `gen_ai.content.*` events). */
function eventMessages(span: OtlpSpan): { input?: JsonValue[]; output?: JsonValue[] } {
  const input: JsonValue[] = [];
  const output: JsonValue[] = [];
  for (const event of span.events) {
    const attrs = event.attributes;
    const role = roleOfEvent[event.name];
    if (role) {
      const body = parsed(attrs['gen_ai.event.content'] ?? attrs.body);
      const message: JsonObject = isObject(body) ? { ...body } : {};
      for (const [key, value] of Object.entries(attrs)) {
        if (key !== 'gen_ai.event.content' && key !== 'body' && !key.startsWith('gen_ai.system')) message[key] = parsed(value)!;
      }
      message.role ??= role;
      input.push(message);
    } else if (event.name === 'gen_ai.choice') {
      const body = parsed(attrs['gen_ai.event.content'] ?? attrs.body);
      const choice: JsonObject = isObject(body) ? { ...body } : {};
      for (const [key, value] of Object.entries(attrs)) {
        if (key !== 'gen_ai.event.content' && key !== 'body' && !key.startsWith('gen_ai.system')) choice[key] = parsed(value)!;
      }
      output.push(
        isObject(choice.message) ? { ...choice.message, ...(choice.finish_reason !== undefined ? { finish_reason: choice.finish_reason } : {}) } : choice,
      );
    } else if (event.name === 'gen_ai.content.prompt') {
      const prompt = parsed(attrs['gen_ai.prompt']);
      if (Array.isArray(prompt)) input.push(...prompt);
      else if (prompt !== undefined) input.push({ role: 'user', content: prompt });
    } else if (event.name === 'gen_ai.content.completion') {
      const completion = parsed(attrs['gen_ai.completion']);
      if (Array.isArray(completion)) output.push(...completion);
      else if (completion !== undefined) output.push({ role: 'assistant', content: completion });
    } else if (event.name === 'gen_ai.client.inference.operation.details') {
      const inMessages = parsed(attrs['gen_ai.input.messages']);
      const outMessages = parsed(attrs['gen_ai.output.messages']);
      if (Array.isArray(inMessages)) input.push(...withContent(inMessages));
      if (Array.isArray(outMessages)) output.push(...withContent(outMessages));
    }
  }
  return { ...(input.length > 0 ? { input } : {}), ...(output.length > 0 ? { output } : {}) };
}

function messageList(value: JsonValue | undefined): JsonValue[] | undefined {
  const list = parsed(value);
  return Array.isArray(list) && list.length > 0 ? withContent(list) : undefined;
}

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
// content

function valueContent(value: JsonValue | undefined, key: 'input' | 'output'): JsonValue | undefined {
  if (value === undefined || value === null) return undefined;
  const content = parsed(value);
  return isObject(content) ? content : { [key]: content! };
}

/**
 * `unflatten` for the prefixes of one span, which all have the form `a.b`: the span's keys are
 * read once for the heads they have, and a prefix none has is answered without another pass
 * (ten passes per span were a tenth of ingestion's time).
 */
function nestedReader(attrs: Attrs): (prefix: string) => JsonValue | undefined {
  const heads = new Set<string>();
  for (const key in attrs) {
    const second = key.indexOf('.', key.indexOf('.') + 1);
    if (second > 0) heads.add(key.slice(0, second));
  }
  return (prefix) => (heads.has(prefix) ? unflatten(attrs, prefix) : undefined);
}

function contentOf(span: OtlpSpan, kind: SpanKind): { inputs: JsonValue | null; outputs: JsonValue | null; internals: JsonValue | null } {
  const attrs = span.attributes;
  const nested = nestedReader(attrs);
  const events = eventMessages(span);

  const inMessages =
    unwrap(nested('llm.input_messages'), 'message') ??
    messageList(attrs['gen_ai.input.messages']) ??
    (nested('gen_ai.prompt') as JsonValue[] | undefined) ??
    events.input;
  const outMessages =
    unwrap(nested('llm.output_messages'), 'message') ??
    messageList(attrs['gen_ai.output.messages']) ??
    (nested('gen_ai.completion') as JsonValue[] | undefined) ??
    events.output;
  const system = parsed(attrs['gen_ai.system_instructions']);

  let inputs: JsonValue | undefined;
  if (Array.isArray(inMessages)) inputs = { messages: inMessages, ...(system !== undefined ? { system_instructions: system } : {}) };
  else if (attrs['input.value'] !== undefined) inputs = valueContent(attrs['input.value'], 'input');
  else if (attrs['gen_ai.tool.call.arguments'] !== undefined) inputs = { arguments: parsed(attrs['gen_ai.tool.call.arguments'])! };
  else if (attrs['tool.parameters'] !== undefined && kind === 'TOOL') inputs = { arguments: parsed(attrs['tool.parameters'])! };
  else if (system !== undefined) inputs = { system_instructions: system };
  if (inputs === undefined) {
    const embeddings = unwrap(nested('embedding.embeddings'), 'embedding');
    const texts = embeddings?.map((item) => (isObject(item) ? item.text : undefined)).filter((item) => item !== undefined);
    if (texts && texts.length > 0) inputs = { texts: texts };
    else {
      const rerankIn = unwrap(nested('reranker.input_documents'), 'document');
      if (rerankIn) inputs = { query: attrs['reranker.query'] ?? null, documents: rerankIn };
    }
  }

  let outputs: JsonValue | undefined;
  if (Array.isArray(outMessages)) outputs = { messages: outMessages };
  else {
    const documents = unwrap(nested('retrieval.documents'), 'document') ?? unwrap(nested('reranker.output_documents'), 'document');
    if (documents) outputs = { documents };
    else if (attrs['output.value'] !== undefined) outputs = valueContent(attrs['output.value'], 'output');
    else if (attrs['gen_ai.tool.call.result'] !== undefined) outputs = { result: parsed(attrs['gen_ai.tool.call.result'])! };
  }

  const internals: JsonObject = {};
  const template = nested('llm.prompt_template');
  if (isObject(template)) {
    if (template.variables !== undefined) template.variables = parsed(template.variables)!;
    internals.prompt_template = template;
  }
  const tools = unwrap(nested('llm.tools'), 'tool') ?? messageList(attrs['gen_ai.tool.definitions']);
  if (tools)
    internals.tools = tools.map((tool) =>
      isObject(tool) && typeof tool.json_schema === 'string' ? { ...tool, json_schema: parsed(tool.json_schema)! } : tool,
    );
  if (kind === 'TOOL') {
    const tool: JsonObject = {};
    for (const [key, from] of [
      ['name', ['tool.name', 'gen_ai.tool.name']],
      ['description', ['tool.description', 'gen_ai.tool.description']],
      ['call_id', ['tool.id', 'gen_ai.tool.call.id']],
      ['type', ['gen_ai.tool.type']],
    ] as const) {
      const value = first([attrs], from);
      if (value !== undefined) tool[key] = value;
    }
    if (Object.keys(tool).length > 0) internals.tool = tool;
  }
  if (attrs.metadata !== undefined) internals.metadata = parsed(attrs.metadata)!;
  if (attrs['tag.tags'] !== undefined) internals.tags = parsed(attrs['tag.tags'])!;
  if (attrs['gen_ai.response.finish_reasons'] !== undefined) internals.finish_reasons = attrs['gen_ai.response.finish_reasons']!;
  if (attrs['gen_ai.response.id'] !== undefined) internals.response_id = attrs['gen_ai.response.id']!;
  const exception = span.events.find((event) => event.name === 'exception');
  if (exception) {
    internals.exception = {
      type: exception.attributes['exception.type'] ?? null,
      message: exception.attributes['exception.message'] ?? null,
      stacktrace: exception.attributes['exception.stacktrace'] ?? null,
    };
  }
  return {
    inputs: inputs ?? null,
    outputs: outputs ?? null,
    internals: Object.keys(internals).length > 0 ? internals : null,
  };
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
    sessionId: text(both, ['session.id', 'gen_ai.conversation.id', 'ag.session.id', 'langfuse.session.id']),
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
