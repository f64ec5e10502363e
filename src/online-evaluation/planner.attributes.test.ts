// A rule's filter on span attributes by key (docs/online-evaluation.md#rules): a trace rule plans
// the traces some span of which has the attribute, a span rule the spans that have it; the
// filter's faults are 422s naming the field under `filter`. The evaluator is a regex config,
// which runs in-process.
import { beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../test/helpers/endpoints.js';
import { createApp, createConfig } from '../../test/helpers/evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';
import { ingestSpans, legacySpan } from '../../test/helpers/spans.js';

const server = useTestServer({ ONLINE_EVALUATION_BACKOFF_SECONDS: '0.1' });
let regex: string;

beforeAll(async () => {
  const appId = await createApp(server);
  regex = (await createConfig(server, appId, 'auto_regex_test', { regex_pattern: 'Paris', regex_should_match: true }, 'paris')).id;
});

async function rule(body: Record<string, unknown>): Promise<string> {
  const created = await server.request('POST', '/evaluation-rules', { evaluator_config_id: regex, ...body });
  expect(created.status, created.text).toBe(200);
  return created.body.id;
}

async function settledJobs(ruleId: string, count: number): Promise<any[]> {
  const end = Date.now() + 30_000;
  for (;;) {
    const jobs = (await server.request('GET', `/evaluation-rules/${ruleId}/jobs?limit=100`)).body.jobs as any[];
    if (jobs.length >= count && jobs.every((job) => job.status !== 'PENDING' && job.status !== 'RUNNING')) return jobs;
    if (Date.now() > end) throw new Error(`jobs of ${ruleId}: ${JSON.stringify(jobs)}`);
    await sleep(100);
  }
}

/** A trace whose LLM child carries `attributes`. */
function trace(id: string, attributes: Record<string, unknown>) {
  return ingestSpans(server, id, [
    legacySpan(`${id}-root`, null, 0, 2, { spankind: 'workflow', inputs: { q: 'capital of France' }, outputs: { a: 'Paris' } }),
    legacySpan(`${id}-llm`, `${id}-root`, 0.5, 1.5, { spankind: 'llm', outputs: { t: 'Paris' }, attributes }),
  ]);
}

describe('rules filtering on span attributes', () => {
  it('plan the traces and spans that have the attribute, and none of the others', async () => {
    const byTrace = await rule({ name: 'openai traces', filter: { attributes: [{ key: 'gen_ai.system', operator: 'equals', value: 'openai' }] } });
    const bySpan = await rule({
      name: 'streamed spans',
      target: 'span',
      filter: {
        spankind: ['LLM'],
        attributes: [
          { key: 'llm.streaming', operator: 'exists' },
          { key: 'gen_ai.system', operator: 'contains', value: 'OPEN' },
        ],
      },
    });
    await trace('attr-1', { 'gen_ai.system': 'openai', 'llm.streaming': true });
    await trace('attr-2', { 'gen_ai.system': 'anthropic', 'llm.streaming': true });
    await trace('attr-3', { 'gen_ai.system': 'openai' });
    await trace('attr-4', {});

    const traceJobs = await settledJobs(byTrace, 2);
    expect(traceJobs.map((job) => job.trace_id).sort()).toEqual(['attr-1', 'attr-3']);
    expect(traceJobs.every((job) => job.status === 'DONE')).toBe(true);
    const spanJobs = await settledJobs(bySpan, 1);
    expect(spanJobs.map((job) => [job.trace_id, job.span_id, job.status])).toEqual([['attr-1', 'attr-1-llm', 'DONE']]);
    // Later traces are planned alone: nothing else was, by either rule.
    await trace('attr-5', { 'gen_ai.system': 'openai', 'llm.streaming': false });
    expect((await settledJobs(byTrace, 3)).map((job) => job.trace_id).sort()).toEqual(['attr-1', 'attr-3', 'attr-5']);
    expect((await settledJobs(bySpan, 2)).map((job) => job.span_id).sort()).toEqual(['attr-1-llm', 'attr-5-llm']);
  });

  it('answer 422 naming the field under filter for a bad attribute filter, on create and on update', async () => {
    const created = await server.request('POST', '/evaluation-rules', {
      name: 'bad attributes',
      evaluator_config_id: regex,
      filter: {
        attributes: [
          { key: 'gen_ai.system', operator: 'equals' },
          { key: '', operator: 'exists' },
        ],
      },
    });
    expect(created.status).toBe(422);
    expect(created.body.detail).toEqual([
      { loc: ['body', 'filter', 'attributes', 0, 'value'], msg: 'Field required: equals compares with a string, number or boolean', type: 'missing' },
      { loc: ['body', 'filter', 'attributes', 1, 'key'], msg: 'String should have at least 1 character', type: 'string_too_short' },
    ]);
    const id = await rule({ name: 'good attributes', filter: { attributes: [{ key: 'gen_ai.system', operator: 'exists' }] } });
    const patched = await server.request('PATCH', `/evaluation-rules/${id}`, { filter: { attributes: [{ key: 'x', operator: 'exists', value: 1 }] } });
    expect(patched.status).toBe(422);
    expect(patched.body.detail).toEqual([{ loc: ['body', 'filter', 'attributes', 0, 'value'], msg: 'exists takes no value', type: 'value_error' }]);
    const read = await server.request('GET', `/evaluation-rules/${id}`);
    expect(read.body.filter).toEqual({ attributes: [{ key: 'gen_ai.system', operator: 'exists' }] });
  });
});
