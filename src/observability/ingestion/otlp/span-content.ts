// The content of an OTLP span (docs/observability.md#from-attributes-to-the-span): its inputs,
// outputs and internals, read from OpenInference's and OpenTelemetry GenAI's message attributes
// and events, tool and retrieval attributes, and `input.value`/`output.value`.
import type { JsonValue, SpanKind } from '../span-record.js';
import { first, isObject, parsed, unflatten, type Attrs } from './attribute-values.js';
import type { JsonObject, OtlpEvent, OtlpSpan } from './decoded-span.js';

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

/**
 * Messages carried by span events (GenAI's event form and the older `gen_ai.content.*` events),
 * or by OTLP log records joined to their span (../log-join.ts).
 */
export function eventMessages(events: readonly OtlpEvent[]): { input?: JsonValue[]; output?: JsonValue[] } {
  const input: JsonValue[] = [];
  const output: JsonValue[] = [];
  for (const event of events) {
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
      // A choice is the model's answer: OpenTelemetry's OpenAI instrumentation sends its message without a role.
      output.push(
        isObject(choice.message)
          ? { role: 'assistant', ...choice.message, ...(choice.finish_reason !== undefined ? { finish_reason: choice.finish_reason } : {}) }
          : choice,
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

export function contentOf(span: OtlpSpan, kind: SpanKind): { inputs: JsonValue | null; outputs: JsonValue | null; internals: JsonValue | null } {
  const attrs = span.attributes;
  const nested = nestedReader(attrs);
  const events = eventMessages(span.events);

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
