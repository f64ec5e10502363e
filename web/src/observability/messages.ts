// Reading a span's inputs and outputs for people (docs/ui.md#span-details): chat messages, as
// ingestion stores them (`{messages: [{role, content | parts, tool_calls?, tool_call_id?}]}`, from
// every library alike), are shown as a conversation, tool calls as calls; anything else as folded JSON.

/** A tool call an assistant message asks for: the function and its arguments (JSON text). */
export interface ToolCall {
  id: string | null;
  name: string;
  arguments: string;
}

export interface ChatMessage {
  role: string;
  /** The text, when the message is text; else null and `rest` holds its parts. */
  text: string | null;
  /** The tool calls it asks for (`tool_calls`), read as calls. */
  toolCalls: ToolCall[];
  /** The call a tool message answers (`tool_call_id`), or null. */
  toolCallId: string | null;
  /** What else the message carries (parts, name, finish reason), or null. */
  rest: Record<string, unknown> | null;
}

export interface Conversation {
  system: string | null;
  messages: ChatMessage[];
  /** Fields of the value besides its messages (other inputs). */
  rest: Record<string, unknown> | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function withoutKeys(value: Record<string, unknown>, keys: string[]): Record<string, unknown> | null {
  const rest = Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
  return Object.keys(rest).length > 0 ? rest : null;
}

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  // `system_instructions` and message parts: a list of `{type: 'text', content}`.
  if (Array.isArray(value) && value.length > 0 && value.every((part) => isRecord(part) && part.type === 'text' && typeof part.content === 'string')) {
    return value.map((part) => (part as { content: string }).content).join('');
  }
  return null;
}

/**
 * `tool_calls` as ingestion stores them (`{id, function: {name, arguments}}`, OpenInference's
 * unwrapped form alike, or `{id, name, arguments}`); null when one of them is not a call.
 */
function toolCallsOf(value: unknown): ToolCall[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const calls: ToolCall[] = [];
  for (const item of value) {
    if (!isRecord(item)) return null;
    const fn = isRecord(item.function) ? item.function : item;
    if (typeof fn.name !== 'string') return null;
    const args = fn.arguments ?? null;
    calls.push({ id: typeof item.id === 'string' ? item.id : null, name: fn.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
  }
  return calls;
}

/** The conversation a span's inputs or outputs hold; null when they are not chat messages. */
export function conversationOf(value: unknown): Conversation | null {
  const list = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value.messages) ? value.messages : null;
  if (!list || list.length === 0 || !list.every((message) => isRecord(message) && typeof message.role === 'string')) return null;
  const messages = (list as Record<string, unknown>[]).map((message) => {
    const text = textOf(message.content) ?? textOf(message.parts);
    const handled = text !== null ? ['role', 'content', 'parts'] : ['role'];
    const toolCalls = toolCallsOf(message.tool_calls);
    if (toolCalls) handled.push('tool_calls', ...(message.content === null ? ['content'] : []));
    const toolCallId = typeof message.tool_call_id === 'string' ? message.tool_call_id : null;
    if (toolCallId !== null) handled.push('tool_call_id');
    return { role: message.role as string, text, toolCalls: toolCalls ?? [], toolCallId, rest: withoutKeys(message, handled) };
  });
  const system = isRecord(value) ? textOf(value.system_instructions) : null;
  return { system, messages, rest: isRecord(value) ? withoutKeys(value, ['messages', 'system_instructions']) : null };
}

/** An exception recorded as a span event (OpenTelemetry's `exception` event). */
export interface ExceptionEvent {
  type: string | null;
  message: string | null;
  stacktrace: string | null;
  time: string | null;
}

export function exceptionsOf(events: unknown): ExceptionEvent[] {
  if (!Array.isArray(events)) return [];
  return events
    .filter((event): event is Record<string, unknown> => isRecord(event) && event.name === 'exception')
    .map((event) => {
      const attributes = isRecord(event.attributes) ? event.attributes : {};
      const text = (key: string) => {
        const value = attributes[key];
        return typeof value === 'string' ? value : null;
      };
      return {
        type: text('exception.type'),
        message: text('exception.message'),
        stacktrace: text('exception.stacktrace'),
        time: typeof event.time === 'string' ? event.time : null,
      };
    });
}

/** Characters of a one-line preview. */
export const PREVIEW_LENGTH = 120;

/** A text alone in an object, as `input.value` and `output.value` are stored (`{input: "…"}`), as that text; else the value. */
export function soleText(value: unknown): unknown {
  const only = isRecord(value) && Object.keys(value).length === 1 ? Object.values(value)[0] : undefined;
  return typeof only === 'string' ? only : value;
}

/**
 * Inputs or outputs in one short line, for a list's cell: a text as it is (also alone in an
 * object, `soleText`), a conversation's last message with text (what was last said), anything else
 * as JSON; empty when none were reported.
 */
export function contentPreview(content: unknown): string {
  if (content === null || content === undefined) return '';
  const value = soleText(content);
  const conversation = conversationOf(value);
  const last = conversation?.messages.findLast((message) => message.text !== null);
  const text = typeof value === 'string' ? value : last ? `${last.role}: ${last.text}` : JSON.stringify(value);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_LENGTH ? `${line.slice(0, PREVIEW_LENGTH)}…` : line;
}
