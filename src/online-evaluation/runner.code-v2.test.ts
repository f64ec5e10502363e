// A rule whose evaluator is a version 2 code evaluator (docs/evaluators.md#custom-code): each trace
// it scores is given to evaluate(inputs, output, trace) as the mapped inputs, the root's output and
// the trace's spans as a tree, its attributes beside `ag`.
import { describe, expect, it } from 'vitest';
import { sleep } from '../../test/helpers/endpoints.js';
import { createApp, createConfig } from '../../test/helpers/evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';
import { ingestSpans, legacySpan } from '../../test/helpers/spans.js';

const server = useTestServer({ ONLINE_EVALUATION_BACKOFF_SECONDS: '0.1' });

async function settledJobs(ruleId: string): Promise<any[]> {
  const end = Date.now() + 60_000;
  for (;;) {
    const jobs = (await server.request('GET', `/evaluation-rules/${ruleId}/jobs`)).body.jobs as any[];
    if (jobs.length > 0 && jobs.every((job) => job.status !== 'PENDING' && job.status !== 'RUNNING')) return jobs;
    if (Date.now() > end) throw new Error(`jobs of ${ruleId} did not settle: ${JSON.stringify(jobs)}`);
    await sleep(100);
  }
}

describe('a version 2 code evaluator in a rule', () => {
  it("scores a trace with evaluate(inputs, output, trace), the trace's spans as a tree", async () => {
    const appId = await createApp(server);
    const code = `function evaluate(inputs, output, trace) {
      const root = trace.spans['span v2-root'];
      const llm = root.spans['span v2-llm'];
      const checks = [
        inputs.q === 'capital of France',
        inputs.correct_answer === 'Paris',
        output.a === 'Paris',
        llm.attributes['gen_ai.system'] === 'openai',
        llm.attributes.ag.data.outputs.t === 'Lyon',
        root.attributes.ag.metrics.acc.tokens.total === 15,
      ];
      return checks.filter(Boolean).length;
    }`;
    const config = await createConfig(server, appId, 'auto_custom_code_run', { code, runtime: 'javascript', version: '2' }, 'trace checks');
    const created = await server.request('POST', '/evaluation-rules', {
      name: 'code v2',
      evaluator_config_id: config.id,
      mapping: { inputs: '$.input', expected: '$.output.a' },
    });
    expect(created.status, created.text).toBe(200);
    await ingestSpans(server, 'v2-trace', [
      legacySpan('v2-root', null, 0, 2, { spankind: 'workflow', inputs: { q: 'capital of France' }, outputs: { a: 'Paris' } }),
      legacySpan('v2-llm', 'v2-root', 0.5, 1.5, {
        spankind: 'llm',
        inputs: { p: 'x' },
        outputs: { t: 'Lyon' },
        tokens: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        attributes: { 'gen_ai.system': 'openai' },
      }),
    ]);
    const [job] = await settledJobs(created.body.id);
    expect(job, JSON.stringify(job)).toMatchObject({ status: 'DONE', trace_id: 'v2-trace' });
    const score = await server.request('GET', `/scores/${job.score_id}`);
    expect(score.body).toMatchObject({ name: 'trace checks', value: 6, source: 'online' });
  });
});
