// What the apps routes answer, described for the OpenAPI document (docs/api.md); a test checks
// real answers against these.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import { variantKinds } from './inputs.js';

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
