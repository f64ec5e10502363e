// A span joined with the OTLP log records that name it (docs/observability.md#otlp-logs): every
// record becomes one of the span's events, and the GenAI events among them (`gen_ai.user.message`,
// `gen_ai.choice`, …, read as span events are: otlp/span-content.ts) are its conversation where the
// span carries none of its own. What the join added is marked, so that it can be taken off again
// and the span joined anew with all of its records, whichever came first.
import { nanosToDate } from '../../shared/time.js';
import type { JsonObject, OtlpEvent } from './otlp/decoded-span.js';
import { eventMessages } from './otlp/span-content.js';
import type { JsonValue } from './span-record.js';

/** A SpanLogRecord row as written (JSON fields as text), made on the decoding thread (otlp/prepare-logs.ts). */
export interface SpanLogRow {
  traceId: string;
  spanId: string;
  recordId: string;
  timeUnixNano: bigint;
  observedTimeUnixNano: bigint;
  /** Its place in its export request: orders records of the same time. */
  position: number;
  eventName: string;
  severityNumber: number;
  severityText: string | null;
  body: string | null;
  attributes: string;
  resource: string | null;
  scope: string | null;
}

/** What the join reads of a stored log record. */
export interface JoinedLogRecord {
  timeUnixNano: bigint;
  position: number;
  eventName: string;
  severityNumber: number;
  severityText: string | null;
  body: JsonValue;
  attributes: JsonObject;
}

/** The span fields a join changes. */
export interface JoinedFields {
  inputs: JsonValue;
  outputs: JsonValue;
  internals: JsonValue;
  events: JsonValue;
}

/** The mark in `internals`: how many records were joined, and which of inputs/outputs took their messages from them. */
const MARK = 'log_records';

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

function withoutKey(value: JsonObject, key: string): JsonValue {
  const rest = { ...value };
  delete rest[key];
  return Object.keys(rest).length > 0 ? rest : null;
}

/** The span's fields as its own source made them: what an earlier join added taken off. */
export function ownFields(stored: JoinedFields): JoinedFields {
  const mark = isObject(stored.internals) && isObject(stored.internals[MARK]) ? stored.internals[MARK] : null;
  const filled = mark && Array.isArray(mark.conversation) ? mark.conversation : [];
  const own = (value: JsonValue, field: string) => (filled.includes(field) && isObject(value) ? withoutKey(value, 'messages') : value);
  const events = Array.isArray(stored.events) ? stored.events.filter((event) => !(isObject(event) && event.log_record === true)) : stored.events;
  return {
    inputs: own(stored.inputs, 'inputs'),
    outputs: own(stored.outputs, 'outputs'),
    internals: mark && isObject(stored.internals) ? withoutKey(stored.internals, MARK) : stored.internals,
    events: Array.isArray(events) && events.length === 0 && Array.isArray(stored.events) && stored.events.length > 0 ? null : events,
  };
}

/** In time order; records of one time (a call's messages, emitted in one millisecond) in the order they were sent. */
const byTime = (a: JoinedLogRecord, b: JoinedLogRecord) =>
  a.timeUnixNano < b.timeUnixNano ? -1 : a.timeUnixNano > b.timeUnixNano ? 1 : a.position - b.position;

/** A record as the span event it becomes (the shape of OTLP span events, docs/observability.md#otlp-ingestion). */
function asEvent(log: JoinedLogRecord): JsonObject {
  return {
    name: log.eventName || 'log',
    time: nanosToDate(log.timeUnixNano).toISOString(),
    time_unix_nano: log.timeUnixNano.toString(),
    attributes: log.attributes,
    ...(log.body !== null ? { body: log.body } : {}),
    ...(log.severityNumber ? { severity_number: log.severityNumber } : {}),
    ...(log.severityText ? { severity_text: log.severityText } : {}),
    log_record: true,
  };
}

/** A record as the span event the GenAI conventions describe: its body an attribute, its name not. */
function asOtlpEvent(log: JoinedLogRecord): OtlpEvent {
  const attributes: JsonObject = { ...log.attributes };
  delete attributes['event.name'];
  if (log.body !== null) attributes.body = log.body;
  return { name: log.eventName, timeUnixNano: log.timeUnixNano, attributes, droppedAttributesCount: 0 };
}

/** `own` (fields with no join in them: `ownFields`) joined with all of the span's log records. */
export function joinLogRecords(own: JoinedFields, logs: readonly JoinedLogRecord[]): JoinedFields {
  if (logs.length === 0) return own;
  const sorted = [...logs].sort(byTime);
  const conversation = eventMessages(sorted.map(asOtlpEvent));
  const messagesOf = (side: JsonValue | undefined) => (isObject(side) && Array.isArray(side.messages) ? side.messages : undefined);
  const filled: string[] = [];
  // The span's own messages win: log events are the same conversation in another form.
  const fill = (value: JsonValue, messages: JsonValue[] | undefined, field: string): JsonValue => {
    if (!messages || !(value === null || (isObject(value) && value.messages === undefined))) return value;
    filled.push(field);
    return { ...(isObject(value) ? value : {}), messages };
  };
  const canMark = own.internals === null || isObject(own.internals);
  const inputs = canMark ? fill(own.inputs, messagesOf(conversation.input), 'inputs') : own.inputs;
  const outputs = canMark ? fill(own.outputs, messagesOf(conversation.output), 'outputs') : own.outputs;
  return {
    inputs,
    outputs,
    internals: canMark ? { ...(isObject(own.internals) ? own.internals : {}), [MARK]: { count: logs.length, conversation: filled } } : own.internals,
    events: [...(Array.isArray(own.events) ? own.events : []), ...sorted.map(asEvent)],
  };
}
