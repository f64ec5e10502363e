// The inputs of the apps domain, named as the REST bodies are (docs/resources.md). REST and GraphQL
// both validate with these, so a fault is reported at the same `loc` through either.
import { z } from 'zod';
import { httpUrl, int, jsonObject, name, number } from '../shared/validation.js';

export const createAppInput = z.object({ app_name: name().max(255) });
export const updateAppInput = createAppInput;

/** Why a revision was made (Langfuse's commitMessage), kept with it. */
function revisionMessage() {
  return z.string().max(2000).nullish().describe('Why this revision was made');
}

export const variantKinds = ['endpoint', 'prompt'] as const;

export const chatRoles = ['system', 'user', 'assistant', 'developer', 'tool'] as const;

/** What a `prompt` variant runs: an OpenAI Chat Completions request with `{column}` placeholders. */
export const promptParameters = z.looseObject({
  model: name(),
  messages: z.array(z.object({ role: z.enum(chatRoles), content: z.string() })).min(1),
  temperature: number({ min: 0, max: 2 }).optional(),
  max_tokens: int({ min: 1 }).optional(),
  top_p: number({ min: 0, max: 1 }).optional(),
  response_format: jsonObject().optional(),
});

export const createVariantInput = z
  .object({
    variant_name: name().max(255),
    kind: z.enum(variantKinds),
    uri: httpUrl().nullish(),
    parameters: jsonObject().nullish(),
    message: revisionMessage(),
  })
  // `when`: check the kind's fields even if other fields failed, so every fault is listed.
  .superRefine((input, ctx) => checkKindFields(input.kind, input, ctx), {
    when: (payload) => variantKinds.includes((payload.value as { kind?: never } | null)?.kind as never),
  });

export const updateVariantParametersInput = z.object({
  parameters: jsonObject(),
  uri: httpUrl().nullish(),
  message: revisionMessage(),
});

type KindFields = { uri?: string | null; parameters?: Record<string, unknown> | null };

/** The fields a kind needs: an endpoint's `uri`, a prompt's `parameters`. */
export function checkKindFields(kind: (typeof variantKinds)[number], input: KindFields, ctx: z.RefinementCtx): void {
  if (kind === 'endpoint') {
    if (!input.uri) ctx.addIssue({ code: 'custom', path: ['uri'], message: 'Field required', params: { type: 'missing' } });
    return;
  }
  const parsed = promptParameters.safeParse(input.parameters, { reportInput: true });
  if (parsed.success) return;
  for (const issue of parsed.error.issues) {
    ctx.addIssue({ ...issue, path: ['parameters', ...issue.path] });
  }
}

/** An environment's name: it is a path segment and a Langfuse label, so letters, digits, `_`, `-`, `.` only. */
export const environmentName = () =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.-]+$/, 'Letters, digits, `_`, `-` and `.` only');

export const createEnvironmentInput = z.object({ name: environmentName() });

export const deployInput = z.object({
  variant_id: z.string().min(1),
  revision: int({ min: 1 }).optional().describe("The revision's number; the variant's newest when absent"),
});

export type CreateAppInput = z.output<typeof createAppInput>;
export type CreateVariantInput = z.output<typeof createVariantInput>;
export type UpdateVariantParametersInput = z.output<typeof updateVariantParametersInput>;
export type DeployInput = z.output<typeof deployInput>;
