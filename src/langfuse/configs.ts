// Langfuse's score-config writes on Assay's (docs/langfuse.md#field-mapping): a config's fields
// become Assay's (`dataType` → `data_type`, …) and Assay's faults name Langfuse's fields.
import type { RequestContext } from '../shared/context.js';
import { ValidationError } from '../shared/errors.js';
import { scoreConfigInput } from '../scores/inputs.js';
import * as scoreConfigs from '../scores/score-configs.js';
import type { ScoreConfigBody, ScoreConfigPatch } from './inputs.js';
import { LangfuseInvalidRequest } from './responses.js';

/** Assay's config fields by Langfuse's names. */
const configFieldOf: Record<string, string> = { data_type: 'dataType', min_value: 'minValue', max_value: 'maxValue', is_archived: 'isArchived' };

/** An Assay fault of a config, at its Langfuse field. */
function asLangfuseFaults(error: unknown): never {
  if (error instanceof ValidationError && !(error instanceof LangfuseInvalidRequest)) {
    throw new LangfuseInvalidRequest(
      error.issues.map((issue) => ({
        path: issue.loc.slice(1).map((part) => configFieldOf[String(part)] ?? part),
        message: issue.msg,
        code: issue.type,
      })),
    );
  }
  throw error;
}

/** `POST /api/public/score-configs`: a TEXT config is Langfuse's alone; a BOOLEAN one's categories are fixed. */
export async function createConfig(ctx: RequestContext, body: ScoreConfigBody) {
  if (body.dataType === 'TEXT') {
    throw new LangfuseInvalidRequest([
      { path: ['dataType'], message: "Assay's score configs are NUMERIC, BOOLEAN or CATEGORICAL; a TEXT score takes no config", code: 'custom' },
    ]);
  }
  const input = scoreConfigInput.safeParse({
    name: body.name,
    data_type: body.dataType,
    min_value: body.minValue,
    max_value: body.maxValue,
    // Langfuse makes a BOOLEAN config's two categories itself; Assay's are fixed.
    categories: body.dataType === 'BOOLEAN' ? null : body.categories,
    description: body.description,
  });
  if (!input.success)
    asLangfuseFaults(
      new ValidationError(input.error.issues.map((issue) => ({ loc: ['body', ...issue.path.map(String)], msg: issue.message, type: issue.code }))),
    );
  try {
    return await scoreConfigs.createScoreConfig(ctx, input.data);
  } catch (error) {
    return asLangfuseFaults(error);
  }
}

/** `PATCH /api/public/score-configs/{configId}`: a field left out is kept. */
export async function updateConfig(ctx: RequestContext, id: string, patch: ScoreConfigPatch) {
  try {
    return await scoreConfigs.updateScoreConfig(ctx, id, {
      name: patch.name,
      min_value: patch.minValue,
      max_value: patch.maxValue,
      categories: patch.categories,
      description: patch.description,
      is_archived: patch.isArchived,
    });
  } catch (error) {
    return asLangfuseFaults(error);
  }
}
