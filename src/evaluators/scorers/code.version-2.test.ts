// auto_custom_code_run version "2", Agenta's current interface: evaluate(inputs, output, trace)
// with the case's spans as a tree (trace-tree.ts), in both runtimes; version 1 keeps its four
// arguments; a stored version that is neither is an error result naming it.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { closeSandbox } from '../sandbox/javascript.js';
import { closePython } from '../sandbox/python.js';
import { spanView, traceTree } from './trace-tree.js';
import { context, faultOf, score, scoringCase, valueOf } from '../../../test/helpers/scorers.js';
import { getScorer } from '../scoring.js';

// The Python pool's interpreters start with the first call, slowly on a busy machine.
vi.setConfig({ testTimeout: 120_000 });

afterAll(async () => {
  await Promise.all([closeSandbox(), closePython()]);
});

const ms = 1_000_000n;
const t0 = 1_700_000_000_000n * ms;

/** An agent's trace: a root, two LLM calls of one name (a list), a tool call beneath the second. */
const spans = [
  { spanId: 'r', parentSpanId: null, name: 'agent', spanKind: 'AGENT', start: 0n, end: 900n, inputs: { question: 'capital?' }, outputs: { answer: 'Paris' } },
  { spanId: 'l1', parentSpanId: 'r', name: 'llm', spanKind: 'LLM', start: 10n, end: 300n, tokens: [10, 5], cost: 0.001, model: 'gpt-4o' },
  { spanId: 'l2', parentSpanId: 'r', name: 'llm', spanKind: 'LLM', start: 400n, end: 800n, tokens: [20, 7], cost: 0.002, model: 'gpt-4o' },
  { spanId: 't', parentSpanId: 'l2', name: 'search', spanKind: 'TOOL', start: 500n, end: 600n, attributes: { 'tool.name': 'search' } },
].map((span) =>
  spanView({
    traceId: 'trace-1',
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    spanKind: span.spanKind,
    statusCode: span.spanId === 't' ? 'ERROR' : 'OK',
    statusMessage: span.spanId === 't' ? 'timeout' : null,
    startTimeUnixNano: t0 + span.start * ms,
    endTimeUnixNano: t0 + span.end * ms,
    inputs: span.inputs ?? null,
    outputs: span.outputs ?? null,
    attributes: span.attributes ?? {},
    model: span.model ?? null,
    promptTokens: span.tokens?.[0] ?? null,
    completionTokens: span.tokens?.[1] ?? null,
    totalTokens: span.tokens ? span.tokens[0] + span.tokens[1] : null,
    cost: span.cost ?? null,
  }),
);

/** `version` null: a config that names none. */
function run(runtime: 'python' | 'javascript', code: string, version: string | null = '2', trace = spans) {
  return score(
    'auto_custom_code_run',
    { code, runtime, ...(version !== null && { version }) },
    { output: 'Paris', testcase: { question: 'capital?', correct_answer: 'Paris' }, appParams: { temperature: 0 }, trace },
  );
}

describe('the trace tree', () => {
  it("is Agenta's shape: roots and children by name (a shared name a list), data and figures under attributes.ag", () => {
    const tree = traceTree([...spans].reverse());
    expect(Object.keys(tree)).toEqual(['trace_id', 'spans']);
    expect(tree.trace_id).toBe('trace-1');
    const agent = tree.spans.agent as Exclude<(typeof tree.spans)[string], unknown[]>;
    expect(agent).toMatchObject({
      trace_id: 'trace-1',
      span_id: 'r',
      parent_span_id: null,
      span_name: 'agent',
      span_kind: 'AGENT',
      status_code: 'OK',
      status_message: null,
      start_time: '2023-11-14T22:13:20.000Z',
      end_time: '2023-11-14T22:13:20.900Z',
    });
    expect(agent.attributes.ag).toEqual({
      data: { inputs: { question: 'capital?' }, outputs: { answer: 'Paris' }, internals: null },
      metrics: {
        unit: { duration: { total: 900 }, tokens: { prompt: 0, completion: 0, total: 0 }, costs: { total: 0 } },
        acc: { duration: { total: 900 }, tokens: { prompt: 30, completion: 12, total: 42 }, costs: { total: 0.003 } },
      },
      meta: { request: { model: null } },
    });
    const llms = agent.spans!.llm as (typeof agent)[];
    expect(llms.map((llm) => llm.span_id)).toEqual(['l1', 'l2']);
    expect(llms[0].spans).toBeUndefined();
    const search = llms[1].spans!.search as typeof agent;
    expect(search).toMatchObject({ span_id: 't', parent_span_id: 'l2', status_code: 'ERROR', status_message: 'timeout' });
    // The attributes the span was sent with stay beside ag.
    expect(search.attributes['tool.name']).toBe('search');
    expect(traceTree([])).toEqual({ trace_id: null, spans: {} });
  });
});

describe.each(['javascript', 'python'] as const)('auto_custom_code_run version 2 in %s', (runtime) => {
  const javascript = runtime === 'javascript';

  it('calls evaluate(inputs, output, trace) with the test case, the output and the tree', async () => {
    const code = javascript
      ? `function evaluate(inputs, output, trace) {
           const agent = trace.spans.agent;
           const tool = agent.spans.llm[1].spans.search;
           if (output !== inputs.correct_answer || tool.status_code !== 'ERROR') return -1;
           return agent.attributes.ag.metrics.acc.tokens.total + agent.spans.llm.length / 10;
         }`
      : [
          'def evaluate(inputs, output, trace):',
          '    agent = trace["spans"]["agent"]',
          '    tool = agent["spans"]["llm"][1]["spans"]["search"]',
          '    if output != inputs["correct_answer"] or tool["status_code"] != "ERROR":',
          '        return -1',
          '    return agent["attributes"]["ag"]["metrics"]["acc"]["tokens"]["total"] + len(agent["spans"]["llm"]) / 10',
        ].join('\n');
    expect(await valueOf('number', run(runtime, code))).toBeCloseTo(42.2);
  });

  it('gives an empty tree to a case without spans, and names the version 2 signature when evaluate is missing', async () => {
    const code = javascript
      ? 'function evaluate(inputs, output, trace) { return Object.keys(trace.spans).length + (trace.trace_id === null ? 0.5 : 0) }'
      : 'def evaluate(inputs, output, trace):\n    return len(trace["spans"]) + (0.5 if trace["trace_id"] is None else 0)';
    expect(await valueOf('number', run(runtime, code, '2', []))).toBe(0.5);
    expect(await faultOf(run(runtime, javascript ? 'const x = 1' : 'x = 1'))).toBe('The code defines no function evaluate(inputs, output, trace)');
  });

  it('keeps version 1 (the default) as evaluate(app_params, inputs, output, correct_answer)', async () => {
    const code = javascript
      ? 'function evaluate(app_params, inputs, output, correct_answer) { return app_params.temperature + (output === correct_answer ? 1 : 0) }'
      : 'def evaluate(app_params, inputs, output, correct_answer):\n    return app_params["temperature"] + (1 if output == correct_answer else 0)';
    expect(await valueOf('number', run(runtime, code, null))).toBe(1);
    expect(await valueOf('number', run(runtime, code, '1'))).toBe(1);
  });
});

it('answers an error result for a stored version that is neither "1" nor "2"', async () => {
  const stored = { code: 'function evaluate() { return 1 }', runtime: 'javascript', version: '3', correct_answer_key: null };
  const scored = getScorer('auto_custom_code_run')!(stored, scoringCase({ output: 'x' }), context());
  expect(await faultOf(scored)).toBe('The version "3" is not offered; use "1" or "2" (edit the evaluator configuration)');
});
