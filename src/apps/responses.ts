// What the apps routes answer, described for the OpenAPI document (docs/api.md), and the functions
// that shape rows into it; a test checks real answers against these.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import { asObject } from '../shared/json.js';
import { variantKinds } from './inputs.js';
import type * as apps from './operations.js';

export const appResponse = z.object({ app_id: z.string(), app_name: z.string(), created_at: timestamp(), updated_at: timestamp() }).meta({ id: 'App' });

export const variantResponse = z
  .object({
    variant_id: z.string(),
    variant_name: z.string(),
    app_id: z.string(),
    project_id: z.string(),
    kind: z.enum(variantKinds),
    uri: z.string().nullable(),
    parameters: z.record(z.string(), z.unknown()).describe("The latest revision's parameters"),
    revision: z.int().describe("The latest revision's number"),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Variant' });

export const variantRevisionResponse = z
  .object({
    id: z.string(),
    variant_id: z.string(),
    revision: z.int(),
    uri: z.string().nullable(),
    parameters: z.record(z.string(), z.unknown()),
    created_at: timestamp(),
  })
  .meta({ id: 'VariantRevision' });

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

export function revisionJson(revision: RevisionRow) {
  return {
    id: revision.id,
    variant_id: revision.variantId,
    revision: revision.revision,
    uri: revision.uri,
    parameters: asObject(revision.parameters),
    created_at: revision.createdAt,
  };
}
