// REST routes of apps and variants (SPEC §3): validate, call the operation, shape the answer.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { described } from '../shared/http/openapi.js';
import { intParam } from '../shared/http/params.js';
import { asObject } from '../shared/json.js';
import { parseInput } from '../shared/validation.js';
import { createAppInput, createVariantInput, updateAppInput, updateVariantParametersInput } from './inputs.js';
import * as apps from './operations.js';
import { appResponse, variantResponse, variantRevisionResponse } from './responses.js';

type AppRow = Awaited<ReturnType<typeof apps.getApp>>;
type VariantRow = apps.VariantWithRevision;
type RevisionRow = Awaited<ReturnType<typeof apps.getVariantRevision>>;

export function appJson(app: AppRow) {
  return { app_id: app.id, app_name: app.name, created_at: app.createdAt, updated_at: app.updatedAt };
}

export function variantJson(variant: VariantRow) {
  const latest = variant.revisions[0];
  return {
    variant_id: variant.id,
    variant_name: variant.name,
    app_id: variant.appId,
    project_id: variant.projectId,
    kind: variant.kind,
    uri: latest?.uri ?? null,
    parameters: asObject(latest?.parameters),
    revision: variant.revision,
    created_at: variant.createdAt,
    updated_at: variant.updatedAt,
  };
}

function revisionJson(revision: RevisionRow) {
  return {
    id: revision.id,
    variant_id: revision.variantId,
    revision: revision.revision,
    uri: revision.uri,
    parameters: asObject(revision.parameters),
    created_at: revision.createdAt,
  };
}

const listAppsQuery = z.object({ app_name: z.string().optional() });

type AppParams = { Params: { app_id: string } };
type VariantParams = { Params: { variant_id: string } };

const tag = 'apps';
const variantParams = z.object({ variant_id: z.string() });

export function appRoutes(app: FastifyInstance): void {
  app.post(
    '/apps',
    described({ tag, summary: 'Create an app', body: createAppInput, response: appResponse, errors: [409], examples: { capitals: { app_name: 'capitals' } } }),
    async (req) => appJson(await apps.createApp(req.ctx, parseInput(createAppInput, req.body, 'body'))));
  app.get('/apps', described({ tag, summary: 'List apps', query: listAppsQuery, response: z.array(appResponse) }), async (req) => (await apps.listApps(req.ctx, parseInput(listAppsQuery, req.query, 'query'))).map(appJson));
  app.get<AppParams>('/apps/:app_id', described({ tag, summary: 'Read an app', response: appResponse, errors: [404] }), async (req) => appJson(await apps.getApp(req.ctx, req.params.app_id)));
  app.patch<AppParams>(
    '/apps/:app_id',
    described({ tag, summary: 'Rename an app', body: updateAppInput, response: appResponse, errors: [404, 409] }),
    async (req) =>
    appJson(await apps.renameApp(req.ctx, req.params.app_id, parseInput(updateAppInput, req.body, 'body'))),
  );
  app.delete<AppParams>(
    '/apps/:app_id',
    described({ tag, summary: 'Delete an app with its variants, configs and evaluations', noContent: true, errors: [404] }),
    async (req, reply) => {
    await apps.deleteApp(req.ctx, req.params.app_id);
    return reply.code(204).send();
  });

  app.post<AppParams>(
    '/apps/:app_id/variants',
    described({
      tag,
      summary: 'Create a variant',
      description: 'An `endpoint` variant needs an http(s) `uri`; a `prompt` variant\'s `parameters` are a Chat Completions request with `{column}` placeholders.',
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
    }),
    async (req) =>
    variantJson(await apps.createVariant(req.ctx, req.params.app_id, parseInput(createVariantInput, req.body, 'body'))),
  );
  app.get<AppParams>(
    '/apps/:app_id/variants',
    described({ tag, summary: 'List an app\'s variants', response: z.array(variantResponse), errors: [404] }),
    async (req) =>
    (await apps.listVariants(req.ctx, req.params.app_id)).map(variantJson),
  );
  app.get<VariantParams>('/variants/:variant_id', described({ tag, summary: 'Read a variant', response: variantResponse, errors: [404] }), async (req) => variantJson(await apps.getVariant(req.ctx, req.params.variant_id)));
  app.put<VariantParams>(
    '/variants/:variant_id/parameters',
    described({ tag, summary: 'Change a variant\'s parameters (a new revision)', body: updateVariantParametersInput, response: variantResponse, errors: [404] }),
    async (req) =>
    variantJson(
      await apps.updateVariantParameters(req.ctx, req.params.variant_id, parseInput(updateVariantParametersInput, req.body, 'body')),
    ),
  );
  app.get<VariantParams>(
    '/variants/:variant_id/revisions',
    described({ tag, summary: 'List a variant\'s revisions', response: z.array(variantRevisionResponse), errors: [404] }),
    async (req) =>
    (await apps.listVariantRevisions(req.ctx, req.params.variant_id)).map(revisionJson),
  );
  app.get<{ Params: { variant_id: string; revision: string } }>(
    '/variants/:variant_id/revisions/:revision',
    described({
      tag,
      summary: 'Read one revision of a variant',
      params: variantParams.extend({ revision: z.int() }),
      response: variantRevisionResponse,
      errors: [404],
    }),
    async (req) =>
    revisionJson(await apps.getVariantRevision(req.ctx, req.params.variant_id, intParam(req.params.revision, 'revision'))),
  );
  app.delete<VariantParams>('/variants/:variant_id', described({ tag, summary: 'Delete a variant', noContent: true, errors: [404] }), async (req, reply) => {
    await apps.deleteVariant(req.ctx, req.params.variant_id);
    return reply.code(204).send();
  });
}
