// Queues fed by online evaluation rules (docs/annotation-queues.md#online-rules): traces sent over
// OTLP are scored by a rule with a code evaluator (no network), and each scored trace becomes an
// item of the queues naming the rule: all of them, or only the failed ones. A rule of another
// target, or an unknown one, is a 422 naming rule_ids.
import { beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../test/helpers/endpoints.js';
import { createApp, createConfig } from '../../test/helpers/evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';
import { addScoredTargets } from './rules.js';

const server = useTestServer({ ONLINE_EVALUATION_BACKOFF_SECONDS: '0.1' });

let scoreConfigId: string;
let traceRule: string;
let spanRule: string;

/** One OTLP span (a trace of its own) whose name the rule's evaluator reads: `verdict-bad` scores 0, others 1. */
async function sendTrace(traceId: string, name: string): Promise<void> {
  const now = BigInt(Date.now()) * 1_000_000n;
  const span = { traceId, spanId: traceId.slice(0, 16), name, kind: 1, startTimeUnixNano: String(now), endTimeUnixNano: String(now + 1000n) };
  const response = await server.request('POST', '/v1/traces', { resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans: [span] }] }] });
  expect(response.status, response.text).toBe(200);
}

async function itemsOf(queueId: string): Promise<string[]> {
  const response = await server.request('GET', `/annotation-queues/${queueId}/items?limit=100`);
  expect(response.status, response.text).toBe(200);
  return (response.body.items as { target_id: string }[]).map((item) => item.target_id).sort();
}

async function settledJobs(ruleId: string, count: number): Promise<any[]> {
  const end = Date.now() + 60_000;
  for (;;) {
    const jobs = (await server.request('GET', `/evaluation-rules/${ruleId}/jobs`)).body.jobs as any[];
    if (jobs.length >= count && jobs.every((job) => job.status !== 'PENDING' && job.status !== 'RUNNING')) return jobs;
    if (Date.now() > end) throw new Error(`jobs of ${ruleId} did not settle: ${JSON.stringify(jobs)}`);
    await sleep(100);
  }
}

async function createQueue(body: Record<string, unknown>) {
  return server.request('POST', '/annotation-queues', { name: 'fed', target_type: 'trace', score_config_ids: [scoreConfigId], ...body });
}

beforeAll(async () => {
  scoreConfigId = (await server.request('POST', '/score-configs', { name: 'right', data_type: 'BOOLEAN' })).body.id;
  const appId = await createApp(server);
  const code = `function evaluate(inputs, output, trace) { return JSON.stringify(trace).includes('verdict-bad') ? 0 : 1; }`;
  const config = await createConfig(server, appId, 'auto_custom_code_run', { code, runtime: 'javascript', version: '2' }, 'verdict');
  const rule = async (name: string, target: string) => {
    const created = await server.request('POST', '/evaluation-rules', { name, target, evaluator_config_id: config.id, delay_seconds: 0 });
    expect(created.status, created.text).toBe(200);
    return created.body.id as string;
  };
  traceRule = await rule('verdicts', 'trace');
  // A span rule that matches nothing sent here (its filter): it only shows the target check.
  spanRule = await rule('span verdicts', 'span');
  await server.request('PATCH', `/evaluation-rules/${spanRule}`, { enabled: false });
});

describe('queues fed by online rules', () => {
  it('adds each trace the rule scores, or only the failed ones, once each', async () => {
    const all = await createQueue({ name: 'all verdicts', rule_ids: [traceRule] });
    expect(all.status, all.text).toBe(200);
    expect(all.body).toMatchObject({ rule_ids: [traceRule], rule_condition: 'all' });
    const failed = await createQueue({ name: 'failed verdicts', rule_ids: [traceRule], rule_condition: 'failed' });
    expect(failed.body).toMatchObject({ rule_ids: [traceRule], rule_condition: 'failed' });
    const unfed = (await createQueue({ name: 'by hand' })).body;
    expect(unfed).toMatchObject({ rule_ids: [], rule_condition: 'all' });

    const good = 'a1'.repeat(16);
    const bad = 'b2'.repeat(16);
    await sendTrace(good, 'verdict-good');
    await sendTrace(bad, 'verdict-bad');
    const jobs = await settledJobs(traceRule, 2);
    expect(jobs.map((job) => job.status)).toEqual(['DONE', 'DONE']);
    // The items are added once the job's end is published: waited for, not assumed.
    const end = Date.now() + 10_000;
    while ((await itemsOf(all.body.id)).length < 2 || (await itemsOf(failed.body.id)).length < 1) {
      if (Date.now() > end) break;
      await sleep(100);
    }
    expect(await itemsOf(all.body.id)).toEqual([good, bad].sort());
    expect(await itemsOf(failed.body.id)).toEqual([bad]);
    expect(await itemsOf(unfed.id)).toEqual([]);

    // The same score told again (another instance's copy of the event) adds nothing.
    const again = await addScoredTargets(server.assay.services, [
      {
        projectId: (await server.assay.services.db.annotationQueue.findUniqueOrThrow({ where: { id: all.body.id } })).projectId,
        ruleId: traceRule,
        target: 'trace',
        targetId: bad,
        traceId: null,
        value: 0,
        dataType: 'NUMERIC',
      },
    ]);
    expect(again).toBe(0);
    expect(await itemsOf(all.body.id)).toHaveLength(2);
  });

  it('422s a rule of another target and an unknown rule, naming rule_ids', async () => {
    const mismatch = await createQueue({ rule_ids: [spanRule] });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'rule_ids', 0], msg: expect.stringContaining('spans') })]);
    const unknown = await createQueue({ rule_ids: [traceRule, 'no-such-rule'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'rule_ids', 1] })]);
    const badCondition = await createQueue({ rule_condition: 'sometimes' });
    expect(badCondition.status).toBe(422);
    expect(badCondition.body.detail[0].loc).toEqual(['body', 'rule_condition']);

    const queue = (await createQueue({ name: 'changed later' })).body;
    const patched = await server.request('PATCH', `/annotation-queues/${queue.id}`, { rule_ids: [spanRule] });
    expect(patched.status).toBe(422);
    expect(patched.body.detail[0].loc).toEqual(['body', 'rule_ids', 0]);
    const ok = await server.request('PATCH', `/annotation-queues/${queue.id}`, { rule_ids: [traceRule], rule_condition: 'failed' });
    expect(ok.body).toMatchObject({ rule_ids: [traceRule], rule_condition: 'failed' });
  });

  it('takes rules over GraphQL', async () => {
    const ruleGlobal = globalId('EvaluationRule', traceRule);
    const configGlobal = globalId('ScoreConfig', scoreConfigId);
    const response = await server.graphql(
      `mutation($input: AnnotationQueueInput!) { createAnnotationQueue(input: $input) { ruleCondition rules { databaseId } } }`,
      { input: { name: 'graphql fed', targetType: 'TRACE', scoreConfigIds: [configGlobal], ruleIds: [ruleGlobal], ruleCondition: 'FAILED' } },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data.createAnnotationQueue).toEqual({ ruleCondition: 'FAILED', rules: [{ databaseId: traceRule }] });
  });
});
