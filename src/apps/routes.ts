// REST routes of apps and variants (SPEC §3): validate, call the operation, shape the answer.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { intParam } from '../shared/http/params.js';
import { asObject } from '../shared/json.js';
import { parseInput } from '../shared/validation.js';
import { createAppInput, createVariantInput, updateAppInput, updateVariantParametersInput } from './inputs.js';
import * as apps from './operations.js';

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

export function appRoutes(app: FastifyInstance): void {
  app.post('/apps', async (req) => appJson(await apps.createApp(req.ctx, parseInput(createAppInput, req.body, 'body'))));
  app.get('/apps', async (req) => (await apps.listApps(req.ctx, parseInput(listAppsQuery, req.query, 'query'))).map(appJson));
  app.get<AppParams>('/apps/:app_id', async (req) => appJson(await apps.getApp(req.ctx, req.params.app_id)));
  app.patch<AppParams>('/apps/:app_id', async (req) =>
    appJson(await apps.renameApp(req.ctx, req.params.app_id, parseInput(updateAppInput, req.body, 'body'))),
  );
  app.delete<AppParams>('/apps/:app_id', async (req, reply) => {
    await apps.deleteApp(req.ctx, req.params.app_id);
    return reply.code(204).send();
  });

  app.post<AppParams>('/apps/:app_id/variants', async (req) =>
    variantJson(await apps.createVariant(req.ctx, req.params.app_id, parseInput(createVariantInput, req.body, 'body'))),
  );
  app.get<AppParams>('/apps/:app_id/variants', async (req) =>
    (await apps.listVariants(req.ctx, req.params.app_id)).map(variantJson),
  );
  app.get<VariantParams>('/variants/:variant_id', async (req) => variantJson(await apps.getVariant(req.ctx, req.params.variant_id)));
  app.put<VariantParams>('/variants/:variant_id/parameters', async (req) =>
    variantJson(
      await apps.updateVariantParameters(req.ctx, req.params.variant_id, parseInput(updateVariantParametersInput, req.body, 'body')),
    ),
  );
  app.get<VariantParams>('/variants/:variant_id/revisions', async (req) =>
    (await apps.listVariantRevisions(req.ctx, req.params.variant_id)).map(revisionJson),
  );
  app.get<{ Params: { variant_id: string; revision: string } }>('/variants/:variant_id/revisions/:revision', async (req) =>
    revisionJson(await apps.getVariantRevision(req.ctx, req.params.variant_id, intParam(req.params.revision, 'revision'))),
  );
  app.delete<VariantParams>('/variants/:variant_id', async (req, reply) => {
    await apps.deleteVariant(req.ctx, req.params.variant_id);
    return reply.code(204).send();
  });
}
