// Evaluator configs (docs/evaluators.md#configs): plain functions over Prisma, shared by REST and
// GraphQL. `query` is Pothos' planned include/select, so GraphQL loads nested fields in the same
// SQL.
import { getApp } from '../apps/operations.js';
import type { RequestContext } from '../shared/context.js';
import { isForeignKeyViolation, isMissingRecord, isUniqueViolation, type Prisma } from '../shared/db.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { asObject, toJson } from '../shared/json.js';
import { parseInput } from '../shared/validation.js';
import { type CreateEvaluatorConfigInput, updateEvaluatorConfigInput } from './inputs.js';
import { getEvaluator } from './registry.js';

export { getEvaluator, listEvaluators } from './registry.js';

type ConfigQuery = Omit<Prisma.EvaluatorConfigFindFirstArgs, 'where'>;

const KIND = 'EvaluatorConfig';

async function uniqueName<T>(write: Promise<T>, name: string, appId: string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`An evaluator config named ${name} already exists in app ${appId}`);
    throw error;
  }
}

/** The URLs among a config's settings (a webhook's), checked as they will be called (docs/access.md#outbound-calls). */
async function checkSettingUrls(ctx: RequestContext, evaluatorKey: string, settings: Record<string, unknown>): Promise<void> {
  const template = getEvaluator(evaluatorKey)?.settings_template ?? {};
  for (const [name, setting] of Object.entries(template)) {
    const value = settings[name];
    if (setting.type === 'url' && typeof value === 'string') await ctx.outboundPolicy.checkSaved(value, ['body', 'settings_values', name]);
  }
}

export async function createEvaluatorConfig(ctx: RequestContext, input: CreateEvaluatorConfigInput) {
  await getApp(ctx, input.app_id);
  await checkSettingUrls(ctx, input.evaluator_key, input.settings_values);
  return uniqueName(
    ctx.db.evaluatorConfig.create({
      data: {
        projectId: ctx.projectId,
        appId: input.app_id,
        name: input.name,
        evaluatorKey: input.evaluator_key,
        settingsValues: toJson(input.settings_values),
      },
    }),
    input.name,
    input.app_id,
  );
}

/** The project's configs, of one app when `app_id` is given, in creation order (ids are UUID v7). */
export async function listEvaluatorConfigs<Q extends ConfigQuery>(ctx: RequestContext, filter: { app_id?: string }, query?: Q) {
  if (filter.app_id !== undefined) await getApp(ctx, filter.app_id);
  return ctx.db.evaluatorConfig.findMany({
    orderBy: { id: 'asc' },
    ...query,
    where: { projectId: ctx.projectId, ...(filter.app_id !== undefined ? { appId: filter.app_id } : {}) },
  });
}

export async function getEvaluatorConfig<Q extends ConfigQuery>(ctx: RequestContext, configId: string, query?: Q) {
  const config = await ctx.db.evaluatorConfig.findFirst({ ...query, where: { id: configId, projectId: ctx.projectId } });
  if (!config) throw new NotFoundError(KIND, configId);
  return config;
}

/** The configs with these ids, in the order given; 404 names the first id that is not found. */
export async function getEvaluatorConfigs(ctx: RequestContext, configIds: readonly string[]) {
  const found = await ctx.db.evaluatorConfig.findMany({ where: { id: { in: [...new Set(configIds)] }, projectId: ctx.projectId } });
  const byId = new Map(found.map((config) => [config.id, config]));
  return configIds.map((configId) => {
    const config = byId.get(configId);
    if (!config) throw new NotFoundError(KIND, configId);
    return config;
  });
}

/** The configs of this project among `configIds`, by id; those not found (deleted) are absent. */
export async function findEvaluatorConfigs(ctx: RequestContext, configIds: readonly string[]) {
  const found = configIds.length > 0 ? await ctx.db.evaluatorConfig.findMany({ where: { id: { in: [...new Set(configIds)] }, projectId: ctx.projectId } }) : [];
  return new Map(found.map((config) => [config.id, config]));
}

/**
 * Renames a config and/or replaces its settings. `body` is validated here, not by the caller:
 * the settings are checked against the template of the config's evaluator, known only once the
 * config is read (its evaluator_key cannot change).
 */
export async function updateEvaluatorConfig(ctx: RequestContext, configId: string, body: unknown) {
  const config = await getEvaluatorConfig(ctx, configId);
  const input = parseInput(updateEvaluatorConfigInput(config.evaluatorKey, asObject(config.settingsValues)), body, 'body');
  if (input.settings_values) await checkSettingUrls(ctx, config.evaluatorKey, input.settings_values);
  const name = input.name ?? config.name;
  return uniqueName(
    ctx.db.evaluatorConfig.update({
      where: { id: configId },
      data: {
        name,
        ...(input.settings_values ? { settingsValues: toJson(input.settings_values) } : {}),
      },
    }),
    name,
    config.appId,
  ).catch((error: unknown) => {
    if (isMissingRecord(error)) throw new NotFoundError(KIND, configId);
    throw error;
  });
}

/** Deletes a config; one that an evaluation uses stays (the evaluation's results name it): 409. */
export async function deleteEvaluatorConfig(ctx: RequestContext, configId: string) {
  await getEvaluatorConfig(ctx, configId);
  try {
    await ctx.db.evaluatorConfig.delete({ where: { id: configId } });
  } catch (error) {
    if (isMissingRecord(error)) throw new NotFoundError(KIND, configId);
    if (isForeignKeyViolation(error)) {
      throw new ConflictError(`Evaluator config ${configId} is used by at least one evaluation and cannot be deleted; delete those evaluations first`);
    }
    throw error;
  }
}

/** The key of configs made for results a caller's code reported (docs/experiments.md): no scorer runs them. */
export const REPORTED_EVALUATOR_KEY = 'external';

/**
 * The app's configs of these names, in the order given, those missing created with the key
 * `external`: results reported under a config's name (a run recorded from code) are that config's,
 * so they line up with Assay's runs of it in a comparison (docs/experiments.md).
 */
export async function findOrCreateConfigsByName(ctx: RequestContext, appId: string, names: readonly string[]) {
  const unique = [...new Set(names)];
  const where = { projectId: ctx.projectId, appId, name: { in: unique } };
  const found = await ctx.db.evaluatorConfig.findMany({ where });
  const missing = unique.filter((name) => !found.some((config) => config.name === name));
  for (const name of missing) {
    try {
      await ctx.db.evaluatorConfig.create({ data: { projectId: ctx.projectId, appId, name, evaluatorKey: REPORTED_EVALUATOR_KEY, settingsValues: {} } });
    } catch (error) {
      // Another request created it meanwhile; theirs is as good.
      if (!isUniqueViolation(error)) throw error;
    }
  }
  const all = missing.length > 0 ? await ctx.db.evaluatorConfig.findMany({ where }) : found;
  const byName = new Map(all.map((config) => [config.name, config]));
  return names.map((name) => byName.get(name)!);
}
