// REST routes of online evaluation rules (docs/online-evaluation.md#rest).
import type { FastifyInstance } from 'fastify';
import { restRoutes } from '../shared/http/route.js';
import { type RuleTarget, backfillBody, jobsQuery, previewBody, ruleInput, rulePatch, savedPreviewBody } from './inputs.js';
import * as backfills from './backfills.js';
import * as rules from './operations.js';
import { ruleStats } from './rule-stats.js';
import {
  backfillJson,
  backfillResponse,
  jobJson,
  jobListResponse,
  previewResponse,
  ruleJson,
  ruleListResponse,
  ruleResponse,
  statsJson,
  statsResponse,
} from './responses.js';
import { previewRule } from './rule-preview.js';

const tag = 'evaluation-rules';

export function evaluationRuleRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/evaluation-rules',
    {
      tag,
      summary: 'Create an online evaluation rule',
      description: 'The rule evaluates the targets that arrive from now on (docs/online-evaluation.md). A name already used in the project is a 409.',
      body: ruleInput,
      response: ruleResponse,
      errors: [409],
      examples: {
        judge: {
          name: 'helpfulness of production answers',
          target: 'trace',
          filter: { environment: 'production', spankind: ['LLM'] },
          sampling_rate: 0.1,
          delay_seconds: 30,
          evaluator_config_id: '0190b5a1-7c1e-7000-8000-000000000000',
          daily_cost_limit_usd: 5,
        },
      },
    },
    async (req, { body }) => ruleJson(await rules.createRule(req.ctx, body)),
  );
  rest.get('/evaluation-rules', { tag, summary: "The project's rules, oldest first", response: ruleListResponse }, async (req) =>
    (await rules.listRules(req.ctx)).map(ruleJson),
  );
  rest.post(
    '/evaluation-rules/preview',
    { tag, summary: 'Run an unsaved rule on one trace; nothing is stored', body: previewBody, response: previewResponse },
    async (req, { body }) =>
      previewRule(
        req.ctx,
        req.ctx.onlineEvaluation.timeoutMs,
        {
          target: body.rule.target,
          filter: rules.ruleSearchFilter(body.rule.filter),
          mapping: body.rule.mapping ?? null,
          evaluatorConfigId: body.rule.evaluator_config_id,
        },
        body.trace_id,
        AbortSignal.timeout(req.ctx.onlineEvaluation.timeoutMs + 1000),
      ),
  );
  rest.get('/evaluation-rules/:rule_id', { tag, summary: 'One rule', response: ruleResponse, errors: [404] }, async (req, { params }) =>
    ruleJson(await rules.getRule(req.ctx, params.rule_id)),
  );
  rest.patch(
    '/evaluation-rules/:rule_id',
    { tag, summary: 'Change a rule (what it evaluates: a new version)', body: rulePatch, response: ruleResponse, errors: [404, 409] },
    async (req, { params, body }) => ruleJson(await rules.updateRule(req.ctx, params.rule_id, body)),
  );
  rest.delete(
    '/evaluation-rules/:rule_id',
    { tag, summary: 'Delete a rule and its jobs (its scores stay)', noContent: true, errors: [404] },
    (req, { params }) => rules.deleteRule(req.ctx, params.rule_id),
  );
  rest.get(
    '/evaluation-rules/:rule_id/jobs',
    { tag, summary: "A rule's jobs, newest first", query: jobsQuery, response: jobListResponse, errors: [404] },
    async (req, { params, query }) => {
      const page = await rules.listJobs(req.ctx, params.rule_id, query);
      return { jobs: page.jobs.map(jobJson), next_cursor: page.nextCursor };
    },
  );
  rest.get(
    '/evaluation-rules/:rule_id/stats',
    { tag, summary: "A rule's jobs by status and skip reason, cost, latency, last errors", response: statsResponse, errors: [404] },
    async (req, { params }) => {
      const rule = await rules.getRule(req.ctx, params.rule_id);
      return statsJson(rule, await ruleStats(req.ctx, rule.id));
    },
  );
  rest.post(
    '/evaluation-rules/:rule_id/preview',
    { tag, summary: 'Run a saved rule on one trace; nothing is stored', body: savedPreviewBody, response: previewResponse, errors: [404] },
    async (req, { params, body }) => {
      const rule = await rules.getRule(req.ctx, params.rule_id);
      return previewRule(
        req.ctx,
        req.ctx.onlineEvaluation.timeoutMs,
        {
          target: rule.target as RuleTarget,
          filter: rules.ruleSearchFilter(rule.filter),
          mapping: rules.ruleMappingOf(rule),
          evaluatorConfigId: rule.evaluatorConfigId,
        },
        body.trace_id,
        AbortSignal.timeout(req.ctx.onlineEvaluation.timeoutMs + 1000),
      );
    },
  );
  rest.post(
    '/evaluation-rules/:rule_id/backfill',
    {
      tag,
      summary: 'Run a rule over the traces of a time range that arrived before it',
      description: 'At most 50,000 targets (`limit`); a target with a job of this rule version gets none again. Runs in the background: read its progress.',
      body: backfillBody,
      response: backfillResponse,
      errors: [404],
      examples: { lastDay: { started_after: '2026-01-01T00:00:00Z', started_before: '2026-01-02T00:00:00Z', limit: 1000 } },
    },
    async (req, { params, body }) => backfillJson(await backfills.createBackfill(req.ctx, params.rule_id, body)),
  );
  rest.get(
    '/evaluation-rules/:rule_id/backfills/:backfill_id',
    { tag, summary: 'A backfill and its progress', response: backfillResponse, errors: [404] },
    async (req, { params }) => backfillJson(await backfills.getBackfill(req.ctx, params.backfill_id, params.rule_id)),
  );
  rest.post(
    '/evaluation-rules/:rule_id/backfills/:backfill_id/cancel',
    { tag, summary: 'Stop a backfill (the jobs it planned stay)', response: backfillResponse, errors: [404] },
    async (req, { params }) => backfillJson(await backfills.cancelBackfill(req.ctx, params.backfill_id, params.rule_id)),
  );
}
