// Reading a span's inputs and outputs for people (docs/ui.md#span-details): chat messages, as
// ingestion stores them (`{messages: [{role, content | parts, tool_calls?}]}`, from OpenInference
// and OTel GenAI alike), are shown as a conversation; anything else as folded JSON.

export interface ChatMessage {
  role: string;
  /** The text, when the message is text; else null and `rest` holds its parts. */
  text: string | null;
  /** What else the message carries (parts, tool calls, name), or null. */
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

/** The conversation a span's inputs or outputs hold; null when they are not chat messages. */
export function conversationOf(value: unknown): Conversation | null {
  const list = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value.messages) ? value.messages : null;
  if (!list || list.length === 0 || !list.every((message) => isRecord(message) && typeof message.role === 'string')) return null;
  const messages = (list as Record<string, unknown>[]).map((message) => {
    const text = textOf(message.content) ?? textOf(message.parts);
    const handled = text !== null ? ['role', 'content', 'parts'] : ['role'];
    return { role: message.role as string, text, rest: withoutKeys(message, handled) };
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
