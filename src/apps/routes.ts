// REST routes of apps and variants (docs/resources.md): validate, call the operation, shape the
// answer (responses.ts).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { intParam } from '../shared/http/params.js';
import { restRoutes } from '../shared/http/route.js';
import { searchQuery } from '../observability/search/inputs.js';
import { metricsResponse, scoreSummaryJson, traceJson, traceListResponse } from '../observability/search/responses.js';
import * as deployments from './deployments.js';
import { createAppInput, createEnvironmentInput, createVariantInput, deployInput, updateAppInput, updateVariantParametersInput } from './inputs.js';
import * as apps from './operations.js';
import * as revisionTraces from './revision-traces.js';
import {
  appJson,
  appResponse,
  deployedConfigJson,
  deployedConfigResponse,
  deploymentJson,
  deploymentResponse,
  environmentJson,
  environmentResponse,
  revisionJson,
  variantJson,
  variantResponse,
  variantRevisionResponse,
} from './responses.js';

const listAppsQuery = z.object({ app_name: z.string().optional() });

const tag = 'apps';

export function appRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/apps',
    { tag, summary: 'Create an app', body: createAppInput, response: appResponse, errors: [409], examples: { capitals: { app_name: 'capitals' } } },
    async (req, { body }) => appJson(await apps.createApp(req.ctx, body)),
  );
  rest.get('/apps', { tag, summary: 'List apps', query: listAppsQuery, response: z.array(appResponse) }, async (req, { query }) =>
    (await apps.listApps(req.ctx, query)).map(appJson),
  );
  rest.get('/apps/:app_id', { tag, summary: 'Read an app', response: appResponse, errors: [404] }, async (req, { params }) =>
    appJson(await apps.getApp(req.ctx, params.app_id)),
  );
  rest.patch(
    '/apps/:app_id',
    { tag, summary: 'Rename an app', body: updateAppInput, response: appResponse, errors: [404, 409] },
    async (req, { params, body }) => appJson(await apps.renameApp(req.ctx, params.app_id, body)),
  );
  rest.delete(
    '/apps/:app_id',
    { tag, summary: 'Delete an app with its variants, configs and evaluations', noContent: true, errors: [404] },
    (req, { params }) => apps.deleteApp(req.ctx, params.app_id),
  );

  rest.post(
    '/apps/:app_id/variants',
    {
      tag,
      summary: 'Create a variant',
      description:
        "An `endpoint` variant needs an http(s) `uri`; a `prompt` variant's `parameters` are a Chat Completions request with `{column}` placeholders.",
      body: createVariantInput,
      response: variantResponse,
      errors: [404, 409],
      examples: {
        endpoint: { variant_name: 'v1', kind: 'endpoint', uri: 'http://127.0.0.1:9000/generate' },
        prompt: {
          variant_name: 'gpt',
          kind: 'prompt',
          parameters: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Capital of {country}?' }], temperature: 0 },
        },
      },
    },
    async (req, { params, body }) => variantJson(await apps.createVariant(req.ctx, params.app_id, body)),
  );
  rest.get('/apps/:app_id/variants', { tag, summary: "List an app's variants", response: z.array(variantResponse), errors: [404] }, async (req, { params }) =>
    (await apps.listVariants(req.ctx, params.app_id)).map(variantJson),
  );
  rest.get('/variants/:variant_id', { tag, summary: 'Read a variant', response: variantResponse, errors: [404] }, async (req, { params }) =>
    variantJson(await apps.getVariant(req.ctx, params.variant_id)),
  );
  rest.put(
    '/variants/:variant_id/parameters',
    { tag, summary: "Change a variant's parameters (a new revision)", body: updateVariantParametersInput, response: variantResponse, errors: [404] },
    async (req, { params, body }) => variantJson(await apps.updateVariantParameters(req.ctx, params.variant_id, body)),
  );
  rest.get(
    '/variants/:variant_id/revisions',
    { tag, summary: "List a variant's revisions", response: z.array(variantRevisionResponse), errors: [404] },
    async (req, { params }) => (await apps.listVariantRevisions(req.ctx, params.variant_id)).map(revisionJson),
  );
  rest.get(
    '/variants/:variant_id/revisions/:revision',
    {
      tag,
      summary: 'Read one revision of a variant',
      params: z.object({ variant_id: z.string(), revision: intParam() }),
      response: variantRevisionResponse,
      errors: [404],
    },
    async (req, { params }) => revisionJson(await apps.getVariantRevision(req.ctx, params.variant_id, params.revision)),
  );
  const revisionParams = z.object({ variant_id: z.string(), revision: intParam() });
  rest.get(
    '/variants/:variant_id/revisions/:revision/traces',
    {
      tag,
      summary: 'The traces whose spans name this revision, newest first',
      description: 'Spans name a revision by the variant id or name and the revision number (docs/deployments.md#traces-of-a-revision).',
      params: revisionParams,
      query: searchQuery.pick({ environment: true, limit: true, cursor: true }),
      response: traceListResponse,
      errors: [404],
    },
    async (req, { params, query }) => {
      const revision = await apps.getVariantRevision(req.ctx, params.variant_id, params.revision);
      const page = await revisionTraces.revisionTraces(req.ctx, revision.id, query.environment ?? null, { first: query.limit, after: query.cursor });
      return { traces: page.edges.map((edge) => traceJson(edge.node)), next_cursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null };
    },
  );
  rest.get(
    '/variants/:variant_id/revisions/:revision/metrics',
    {
      tag,
      summary: "Count, errors, cost, tokens, latency percentiles and scores of the revision's traces",
      description: "In `environment` (every one but Assay's evaluations when absent); `scores` holds every score name of those traces.",
      params: revisionParams,
      query: searchQuery.pick({ environment: true }),
      response: metricsResponse,
      errors: [404],
    },
    async (req, { params, query }) => {
      const revision = await apps.getVariantRevision(req.ctx, params.variant_id, params.revision);
      const stats = await revisionTraces.revisionStats(req.ctx, revision.id, query.environment ?? null);
      return { ...stats.traces, scores: stats.scores.map(scoreSummaryJson) };
    },
  );
  rest.delete('/variants/:variant_id', { tag, summary: 'Delete a variant', noContent: true, errors: [404] }, (req, { params }) =>
    apps.deleteVariant(req.ctx, params.variant_id),
  );

  environmentRoutes(app);
}

/** Environments and deployments (docs/deployments.md). */
function environmentRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  const tag = 'deployments';
  rest.get(
    '/apps/:app_id/environments',
    { tag, summary: "List an app's environments, each with what it serves", response: z.array(environmentResponse), errors: [404] },
    async (req, { params }) => (await deployments.listEnvironments(req.ctx, params.app_id)).map(environmentJson),
  );
  rest.post(
    '/apps/:app_id/environments',
    {
      tag,
      summary: 'Add an environment to an app',
      body: createEnvironmentInput,
      response: environmentResponse,
      errors: [404, 409],
      examples: { qa: { name: 'qa' } },
    },
    async (req, { params, body }) => environmentJson(await deployments.createEnvironment(req.ctx, params.app_id, body.name)),
  );
  rest.get(
    '/apps/:app_id/environments/:environment_name',
    { tag, summary: 'Read an environment', response: environmentResponse, errors: [404] },
    async (req, { params }) => environmentJson(await deployments.getEnvironment(req.ctx, params.app_id, params.environment_name)),
  );
  rest.delete(
    '/apps/:app_id/environments/:environment_name',
    { tag, summary: "Delete an app's own environment and its history (not development, staging or production)", noContent: true, errors: [404, 409] },
    async (req, { params }) => {
      await deployments.deleteEnvironment(req.ctx, params.app_id, params.environment_name);
    },
  );
  rest.post(
    '/apps/:app_id/environments/:environment_name/deploy',
    {
      tag,
      summary: 'Deploy a variant revision to an environment',
      description: 'A rollback is a deployment of an older revision. Recorded in the history and the audit log with who and when.',
      body: deployInput,
      response: environmentResponse,
      errors: [404],
      examples: { latest: { variant_id: '0190…' }, rollback: { variant_id: '0190…', revision: 1 } },
    },
    async (req, { params, body }) => environmentJson(await deployments.deploy(req.ctx, params.app_id, params.environment_name, body)),
  );
  rest.get(
    '/apps/:app_id/environments/:environment_name/deployments',
    { tag, summary: "An environment's deployments, newest first", response: z.array(deploymentResponse), errors: [404] },
    async (req, { params }) => (await deployments.listDeployments(req.ctx, params.app_id, params.environment_name)).map(deploymentJson),
  );
  rest.get(
    '/apps/:app_id/environments/:environment_name/config',
    {
      tag,
      summary: 'What an environment serves: the deployed revision, for the app to run',
      description:
        'Answers an `ETag` that changes with every deployment and `Cache-Control: no-cache`: send it back in `If-None-Match` for a 304 while nothing was deployed since. 404 before the first deployment.',
      response: deployedConfigResponse,
      errors: [404],
    },
    async (req, { params }, reply) => {
      const deployed = await deployments.getDeployedRevision(req.ctx, params.app_id, params.environment_name);
      const tag = deployments.deploymentTag(deployed.revision.id, deployed.deployedAt);
      void reply.header('etag', tag).header('cache-control', 'no-cache');
      if (matchesTag(req.headers['if-none-match'], tag)) return reply.code(304).send();
      return deployedConfigJson(deployed);
    },
  );
}

/** If-None-Match as RFC 9110 compares it: weakly, against a list or `*`. */
function matchesTag(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const value = candidate.trim();
    return value === '*' || value.replace(/^W\//, '') === tag;
  });
}
