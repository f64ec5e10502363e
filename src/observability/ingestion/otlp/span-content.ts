// The readers of a span's content (docs/observability.md#from-attributes-to-the-span): the forms
// the rules of mapping-rules.ts name in `read` for inputs, outputs, tools and prompt templates.
// Chat messages of every form (OpenInference, OTel GenAI parts and events, OpenAI, AI SDK,
// Langfuse) become `{messages: [{role, content, tool_calls?, tool_call_id?, …}]}`, which the UI
// shows as a conversation.
import type { JsonValue } from '../span-record.js';
import { isObject, parsed, unflatten, type Attrs } from './attribute-values.js';
import type { JsonObject, OtlpEvent } from './decoded-span.js';

/** `[{message: {...}}]` → `[{...}]`, the wrapper OpenInference puts around each item. */
function unwrap(list: JsonValue | undefined, wrapper: string): JsonValue[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((item) => (isObject(item) && isObject(item[wrapper]) ? unwrapMessage(item[wrapper]) : item));
}

/**
 * An OpenInference message with its wrappers taken off. Its `contents`
 * (`message.contents.{j}.message_content.*`, the parts of a multi-part message) become its
 * `content` text when they are all text; other parts (images) stay as `contents`, beside the text
 * of the text parts.
 */
function unwrapMessage(message: JsonObject): JsonObject {
  const out: JsonObject = { ...message };
  if (Array.isArray(out.contents)) {
    const contents = unwrap(out.contents, 'message_content')!;
    const texts = contents
      .filter((part) => isObject(part) && part.type === 'text' && typeof part.text === 'string')
      .map((part) => (part as JsonObject).text as string);
    if (out.content === undefined && texts.length > 0) out.content = texts.join('');
    if (texts.length === contents.length) delete out.contents;
    else out.contents = contents;
  }
  if (Array.isArray(out.tool_calls)) out.tool_calls = unwrap(out.tool_calls, 'tool_call')!;
  return out;
}

const textOf = (value: JsonValue | undefined) => (typeof value === 'string' ? value : value === undefined || value === null ? null : JSON.stringify(value));

/** An AI SDK or OpenAI content part that is text: its text, else null. */
function partText(part: JsonValue): string | null {
  if (typeof part === 'string') return part;
  if (!isObject(part)) return null;
  if ((part.type === 'text' || part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string') return part.text;
  if (part.type === 'text' && typeof part.content === 'string') return part.content;
  return null;
}

const argumentsText = (value: JsonValue | undefined) => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/**
 * An OTel GenAI message (`parts`): with a `content` text when every part is text; when its parts
 * are text, tool calls and tool results only, those as `content`, `tool_calls` and
 * `tool_call_id` instead of the parts (the raw attributes keep them); else as sent.
 */
function genAiMessage(message: JsonObject, parts: JsonValue[]): JsonObject {
  const texts: string[] = [];
  const toolCalls: JsonValue[] = [];
  let response: JsonObject | undefined;
  for (const part of parts) {
    if (!isObject(part)) return message;
    if (part.type === 'text' && typeof part.content === 'string') texts.push(part.content);
    else if (part.type === 'tool_call')
      toolCalls.push({ id: part.id ?? null, type: 'function', function: { name: part.name ?? null, arguments: argumentsText(part.arguments) } });
    else if (part.type === 'tool_call_response' && response === undefined) response = part;
    else return message;
  }
  if (toolCalls.length === 0 && response === undefined) return { ...message, content: texts.join('') };
  const { parts: _parts, ...rest } = message;
  const out: JsonObject = { ...rest, content: texts.length > 0 ? texts.join('') : null };
  if (toolCalls.length > 0) out.tool_calls = toolCalls;
  if (response !== undefined) {
    out.tool_call_id = response.id ?? null;
    out.content = textOf(response.response ?? response.result ?? null);
  }
  return out;
}

/**
 * One message in the stored form. GenAI messages (with `parts`) keep their parts and get a
 * `content` text when every part is text; messages whose `content` is a list of parts (OpenAI, AI
 * SDK) get that text as `content`, their tool-call parts as `tool_calls` and their tool results as
 * `tool` messages of their own. Other messages are kept as sent.
 */
function normalizeMessage(message: JsonValue, into: JsonValue[]): void {
  if (!isObject(message)) {
    into.push(message);
    return;
  }
  if (message.content === undefined && Array.isArray(message.parts)) {
    into.push(genAiMessage(message, message.parts));
    return;
  }
  if (!Array.isArray(message.content)) {
    into.push(message);
    return;
  }
  const texts: string[] = [];
  const toolCalls: JsonValue[] = [];
  const results: JsonObject[] = [];
  const other: JsonValue[] = [];
  for (const part of message.content) {
    const text = partText(part);
    if (text !== null) texts.push(text);
    else if (isObject(part) && (part.type === 'tool-call' || part.type === 'tool_use')) {
      const args = part.input ?? part.args ?? null;
      toolCalls.push({
        id: part.toolCallId ?? part.id ?? null,
        type: 'function',
        function: { name: part.toolName ?? part.name ?? null, arguments: argumentsText(args) },
      });
    } else if (isObject(part) && (part.type === 'tool-result' || part.type === 'tool_result')) {
      const output = part.output ?? part.result ?? part.content ?? null;
      const value = isObject(output) && output.type !== undefined && output.value !== undefined ? output.value : output;
      results.push({ role: 'tool', tool_call_id: part.toolCallId ?? part.tool_use_id ?? null, name: part.toolName ?? null, content: textOf(value) });
    } else other.push(part);
  }
  if (results.length > 0 && texts.length === 0 && toolCalls.length === 0 && other.length === 0) {
    into.push(...results);
    return;
  }
  const out: JsonObject = { ...message, content: other.length === 0 ? texts.join('') : message.content };
  if (toolCalls.length > 0) {
    out.tool_calls = toolCalls;
    if (texts.length === 0 && other.length === 0) out.content = null;
  }
  into.push(out);
  into.push(...results);
}

function normalizeMessages(list: JsonValue[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (const message of list) normalizeMessage(message, out);
  return out;
}

const isMessageList = (value: JsonValue | undefined): value is JsonValue[] =>
  Array.isArray(value) && value.length > 0 && value.every((item) => isObject(item) && typeof item.role === 'string');

/** A JSON list of messages (any form) as `{messages}`; undefined when it is not a non-empty list. */
export function messagesContent(value: JsonValue): JsonValue | undefined {
  const list = parsed(value);
  return Array.isArray(list) && list.length > 0 ? { messages: normalizeMessages(list) } : undefined;
}

/** Flattened OpenInference messages `prefix.{i}.message.*`. */
export function openInferenceMessages(attrs: Attrs, prefix: string): JsonValue | undefined {
  const list = unwrap(unflatten(attrs, prefix), 'message');
  return list ? { messages: list } : undefined;
}

/** Flattened messages `prefix.{i}.role|content|…` (the older GenAI form). */
export function indexedMessages(attrs: Attrs, prefix: string): JsonValue | undefined {
  const list = unflatten(attrs, prefix);
  return Array.isArray(list) ? { messages: list } : undefined;
}

/** `input.value`/`output.value`: a JSON object as is, a list of messages as messages, any other value as `{[key]: value}`. */
export function valueContent(value: JsonValue, key: 'input' | 'output'): JsonValue | undefined {
  if (value === null) return undefined;
  const content = parsed(value);
  return isObject(content) ? content : { [key]: content! };
}

/**
 * A function's input or output as an SDK recorded it (Langfuse's observations, OpenLLMetry's
 * entities): a tool's as its arguments and result; messages as a conversation; a generation's
 * text as a user or assistant message; anything else like `valueContent`.
 */
function recordedContent(content: JsonValue | undefined, key: 'input' | 'output', kind: 'tool' | 'generation' | 'other'): JsonValue | undefined {
  if (content === null || content === undefined || content === '') return undefined;
  if (kind === 'tool') return key === 'input' ? { arguments: content } : { result: content };
  if (isMessageList(content)) return { messages: normalizeMessages(content) };
  if (isObject(content)) {
    if (isMessageList(content.messages)) return { ...content, messages: normalizeMessages(content.messages) };
    if (typeof content.role === 'string') return { messages: normalizeMessages([content]) };
    return content;
  }
  if (typeof content === 'string' && kind === 'generation') return { messages: [{ role: key === 'input' ? 'user' : 'assistant', content }] };
  return { [key]: content };
}

/** Langfuse's observation input or output (`recordedContent`, by the observation's type). */
export function langfuseContent(attrs: Attrs, value: JsonValue, key: 'input' | 'output'): JsonValue | undefined {
  const type = attrs['langfuse.observation.type'];
  return recordedContent(parsed(value), key, type === 'tool' ? 'tool' : type === 'generation' ? 'generation' : 'other');
}

/**
 * OpenLLMetry's `traceloop.entity.input`/`output`: JSON of what a decorated function took and
 * answered. Its arguments come as `{args, kwargs}`: one object argument is shown as that object,
 * one other argument as itself.
 */
export function traceloopContent(attrs: Attrs, value: JsonValue, key: 'input' | 'output'): JsonValue | undefined {
  let content: JsonValue | undefined = value;
  if (typeof value === 'string') {
    try {
      content = JSON.parse(value) as JsonValue;
    } catch {
      content = value;
    }
  }
  if (key === 'input' && isObject(content) && Array.isArray(content.args) && isObject(content.kwargs)) {
    const { args, kwargs } = content;
    if (args.length === 0) content = Object.keys(kwargs).length > 0 ? kwargs : undefined;
    else if (args.length === 1 && Object.keys(kwargs).length === 0) content = args[0];
  }
  return recordedContent(content, key, attrs['traceloop.span.kind'] === 'tool' ? 'tool' : 'other');
}

/** AI SDK's `ai.prompt` (`{system?, prompt?, messages?}`) as a conversation. */
export function aiPromptContent(value: JsonValue): JsonValue | undefined {
  const prompt = parsed(value);
  if (!isObject(prompt)) return prompt === undefined || prompt === null ? undefined : { input: prompt };
  const messages: JsonValue[] = [];
  if (typeof prompt.system === 'string') messages.push({ role: 'system', content: prompt.system });
  if (Array.isArray(prompt.messages)) messages.push(...normalizeMessages(prompt.messages));
  else if (typeof prompt.prompt === 'string') messages.push({ role: 'user', content: prompt.prompt });
  else if (Array.isArray(prompt.prompt)) messages.push(...normalizeMessages(prompt.prompt));
  return messages.length > 0 ? { messages } : prompt;
}

/** AI SDK's `ai.response.text` and `ai.response.toolCalls` as one assistant message. */
export function aiResponseContent(attrs: Attrs): JsonValue | undefined {
  const text = attrs['ai.response.text'];
  const calls = parsed(attrs['ai.response.toolCalls']);
  const message: JsonObject = { role: 'assistant', content: typeof text === 'string' ? text : null };
  if (Array.isArray(calls) && calls.length > 0) {
    message.tool_calls = calls.map((call) => {
      if (!isObject(call)) return call;
      const args = call.input ?? call.args ?? null;
      return {
        id: call.toolCallId ?? null,
        type: 'function',
        function: { name: call.toolName ?? null, arguments: argumentsText(args) },
      };
    });
  }
  if (message.content === null && message.tool_calls === undefined) return undefined;
  const finish = attrs['ai.response.finishReason'];
  if (typeof finish === 'string') message.finish_reason = finish;
  return { messages: [message] };
}

/** A list of values (JSON text, or a list whose items may be JSON text), each item parsed. */
export function jsonList(value: JsonValue): JsonValue[] | undefined {
  const list = parsed(value);
  return Array.isArray(list) ? list.map((item) => parsed(item)!) : undefined;
}

/** A JSON text of any value (AI SDK's `ai.values` items are JSON strings) parsed, else as it is. */
function anyJson(value: JsonValue): JsonValue {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as JsonValue;
  } catch {
    return value;
  }
}

/** AI SDK's embedded texts (`ai.values`, `ai.value`: JSON text each) as `{texts}`. */
export function textsContent(value: JsonValue): JsonValue | undefined {
  const list = Array.isArray(value) ? value.map(anyJson) : [anyJson(value)];
  return list.length > 0 ? { texts: list } : undefined;
}

/** AI SDK's vectors (`ai.embeddings`, `ai.embedding`: JSON text each) as `{embeddings}`. */
export function embeddingsContent(value: JsonValue): JsonValue | undefined {
  const list = Array.isArray(value) ? value.map(anyJson) : [anyJson(value)];
  return list.length > 0 ? { embeddings: list } : undefined;
}

export function documentsContent(attrs: Attrs, prefix: string): JsonValue | undefined {
  const documents = unwrap(unflatten(attrs, prefix), 'document');
  return documents ? { documents } : undefined;
}

export function embeddingTexts(attrs: Attrs, prefix: string): JsonValue | undefined {
  const texts = unwrap(unflatten(attrs, prefix), 'embedding')
    ?.map((item) => (isObject(item) ? item.text : undefined))
    .filter((item) => item !== undefined);
  return texts && texts.length > 0 ? { texts } : undefined;
}

export function rerankInput(attrs: Attrs, prefix: string): JsonValue | undefined {
  const documents = unwrap(unflatten(attrs, prefix), 'document');
  return documents ? { query: attrs['reranker.query'] ?? null, documents } : undefined;
}

export function openInferenceTools(attrs: Attrs, prefix: string): JsonValue[] | undefined {
  return unwrap(unflatten(attrs, prefix), 'tool')?.map((tool) =>
    isObject(tool) && typeof tool.json_schema === 'string' ? { ...tool, json_schema: parsed(tool.json_schema)! } : tool,
  );
}

export function promptTemplate(attrs: Attrs, prefix: string): JsonValue | undefined {
  const template = unflatten(attrs, prefix);
  if (!isObject(template)) return undefined;
  if (template.variables !== undefined) template.variables = parsed(template.variables)!;
  return template;
}

const roleOfEvent: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

/** An event's body (`gen_ai.event.content` or `body`) with its other attributes, as one object. */
function eventBody(attrs: JsonObject): JsonObject {
  const body = parsed(attrs['gen_ai.event.content'] ?? attrs.body);
  const out: JsonObject = isObject(body) ? { ...body } : {};
  for (const key in attrs) {
    if (key !== 'gen_ai.event.content' && key !== 'body' && !key.startsWith('gen_ai.system')) out[key] = parsed(attrs[key])!;
  }
  return out;
}

/**
 * Messages carried by span events (GenAI's event forms and the older `gen_ai.content.*` events),
 * or by the OTLP log records joined to their span (../log-join.ts).
 */
export function eventMessages(events: readonly OtlpEvent[]): { input?: JsonValue; output?: JsonValue } {
  const input: JsonValue[] = [];
  const output: JsonValue[] = [];
  for (const event of events) {
    const attrs = event.attributes;
    const role = roleOfEvent[event.name];
    if (role) {
      const message = eventBody(attrs);
      message.role ??= role;
      // A tool message's `id` is the call it answers: stored as `tool_call_id`, as other forms are.
      if (role === 'tool' && message.tool_call_id === undefined && message.id !== undefined) {
        message.tool_call_id = message.id;
        delete message.id;
      }
      input.push(message);
    } else if (event.name === 'gen_ai.choice') {
      const choice = eventBody(attrs);
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
      if (Array.isArray(inMessages)) input.push(...normalizeMessages(inMessages));
      if (Array.isArray(outMessages)) output.push(...normalizeMessages(outMessages));
    }
  }
  return { ...(input.length > 0 ? { input: { messages: input } } : {}), ...(output.length > 0 ? { output: { messages: output } } : {}) };
}
