// The roll-up rule of docs/instrumentation.md#roll-ups, for every library whose rules name spans that
// repeat their descendants' usage: such a span's tokens and cost are kept in its internals, not in
// the columns the trace's sums add; the model calls of the same libraries keep theirs. Read from
// the rule tables themselves, so a rule added later is tested too. (The client tests under
// test/clients show the trace totals through the real libraries.)
import { describe, expect, it } from 'vitest';
import { blankSpan, type JsonObject, type OtlpResource, type OtlpSpan } from './decoded-span.js';
import { conventions } from './mapping-rules.js';
import { otlpSpanRecord } from './span-mapping.js';

const resource: OtlpResource = { attributes: {}, droppedAttributesCount: 0, schemaUrl: '' };

function record(attributes: JsonObject) {
  const span: OtlpSpan = {
    ...blankSpan(),
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    name: 'span',
    startTimeUnixNano: 1_714_564_800_000_000_000n,
    endTimeUnixNano: 1_714_564_801_000_000_000n,
    attributes,
  };
  return otlpSpanRecord(span, resource, {}, {});
}

const usage = { 'gen_ai.usage.input_tokens': 40, 'gen_ai.usage.output_tokens': 16, 'gen_ai.usage.cost': 0.5 };

const kindRules = conventions.flatMap((convention) => convention.rules.filter((rule) => rule.kinds).map((rule) => ({ convention: convention.name, rule })));
const rolledUp = kindRules.flatMap(({ convention, rule }) => (rule.rollUp ?? []).map((value) => ({ convention, key: rule.key, value })));
const kept = kindRules.flatMap(({ convention, rule }) =>
  Object.keys(rule.kinds!)
    .filter((value) => value !== '*' && !rule.rollUp?.includes(value) && (rule.kinds![value] === 'LLM' || rule.kinds![value] === 'EMBEDDING'))
    .map((value) => ({ convention, key: rule.key, value })),
);

describe('spans whose usage repeats their descendants', () => {
  it('are named by the AI SDK, OpenTelemetry GenAI, Langfuse, OpenLLMetry and OpenInference rules', () => {
    expect(new Set(rolledUp.map((item) => item.convention))).toEqual(
      new Set(['Vercel AI SDK', 'OpenTelemetry GenAI', 'Langfuse', 'OpenLLMetry', 'OpenInference']),
    );
  });

  it.each(rolledUp)('$convention: $key = $value keeps its usage and cost apart', ({ key, value }) => {
    const span = record({ [key]: value, ...usage });
    expect(span).toMatchObject({ promptTokens: null, completionTokens: null, totalTokens: null, cost: null });
    expect(span.internals).toMatchObject({ usage_of_descendants: { prompt_tokens: 40, completion_tokens: 16, total_tokens: 56, cost: 0.5 } });
  });

  it.each(kept)('$convention: a model call ($key = $value) keeps its own', ({ key, value }) => {
    const span = record({ [key]: value, ...usage });
    expect(span).toMatchObject({ promptTokens: 40, completionTokens: 16, totalTokens: 56, cost: 0.5 });
    expect(span.internals).toBeNull();
  });

  it('reads Langfuse usage_details and cost_details on an agent as repeated too', () => {
    const span = record({
      'langfuse.observation.type': 'agent',
      'langfuse.observation.usage_details': '{"input":40,"output":16}',
      'langfuse.observation.cost_details': '{"input":0.25,"output":0.25}',
    });
    expect(span).toMatchObject({ spanKind: 'AGENT', totalTokens: null, cost: null });
    expect(span.internals).toMatchObject({ usage_of_descendants: { prompt_tokens: 40, completion_tokens: 16, total_tokens: 56, cost: 0.5 } });
  });

  it('leaves an agent span that reports no usage as it is', () => {
    const span = record({ 'gen_ai.operation.name': 'invoke_agent' });
    expect(span).toMatchObject({ spanKind: 'AGENT', totalTokens: null, internals: null });
  });
});
