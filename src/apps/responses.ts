// What the apps routes answer, described for the OpenAPI document (docs/api.md), and the functions
// that shape rows into it; a test checks real answers against these.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import { asObject } from '../shared/json.js';
import { variantKinds } from './inputs.js';
import type { DeploymentRow, EnvironmentRow, getDeployedRevision } from './deployments.js';
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
    message: z.string().nullable().describe('Why this revision was made; null when none was given'),
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
    message: revision.message,
    created_at: revision.createdAt,
  };
}

const deployedFields = {
  revision_id: z.string().nullable().describe('The revision deployed now; null before the first deployment'),
  variant_id: z.string().nullable(),
  variant_name: z.string().nullable(),
  revision: z.int().nullable().describe("The deployed revision's number"),
};

export const environmentResponse = z
  .object({ environment_id: z.string(), app_id: z.string(), name: z.string(), ...deployedFields, deployed_at: timestamp().nullable(), created_at: timestamp() })
  .meta({ id: 'Environment' });

export const deploymentResponse = z
  .object({
    deployment_id: z.string(),
    app_id: z.string(),
    environment: z.string(),
    revision_id: z.string(),
    variant_id: z.string(),
    variant_name: z.string(),
    revision: z.int(),
    deployed_by: z.object({ type: z.enum(['api_key', 'user', 'system']), id: z.string().nullable(), label: z.string().nullable() }),
    created_at: timestamp(),
  })
  .meta({ id: 'Deployment' });

export const deployedConfigResponse = z
  .object({
    app_id: z.string(),
    environment: z.string(),
    variant_id: z.string(),
    variant_name: z.string(),
    kind: z.enum(variantKinds),
    revision: z.int(),
    revision_id: z.string(),
    uri: z.string().nullable(),
    parameters: z.record(z.string(), z.unknown()),
    deployed_at: timestamp(),
  })
  .meta({ id: 'DeployedConfig' });

export function environmentJson(environment: EnvironmentRow) {
  const { revision } = environment;
  return {
    environment_id: environment.id,
    app_id: environment.appId,
    name: environment.name,
    revision_id: revision?.id ?? null,
    variant_id: revision?.variant.id ?? null,
    variant_name: revision?.variant.name ?? null,
    revision: revision?.revision ?? null,
    deployed_at: environment.deployedAt,
    created_at: environment.createdAt,
  };
}

export function deploymentJson(deployment: DeploymentRow) {
  return {
    deployment_id: deployment.id,
    app_id: deployment.environment.appId,
    environment: deployment.environment.name,
    revision_id: deployment.revisionId,
    variant_id: deployment.revision.variant.id,
    variant_name: deployment.revision.variant.name,
    revision: deployment.revision.revision,
    deployed_by: { type: deployment.actorType as 'api_key' | 'user' | 'system', id: deployment.actorId, label: deployment.actorLabel },
    created_at: deployment.createdAt,
  };
}

export function deployedConfigJson({ environment, revision, deployedAt }: Awaited<ReturnType<typeof getDeployedRevision>>) {
  return {
    app_id: environment.appId,
    environment: environment.name,
    variant_id: revision.variant.id,
    variant_name: revision.variant.name,
    kind: revision.variant.kind,
    revision: revision.revision,
    revision_id: revision.id,
    uri: revision.uri,
    parameters: asObject(revision.parameters),
    deployed_at: deployedAt,
  };
}
