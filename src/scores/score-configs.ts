// Score configs (docs/scores.md): creating, reading and changing them. A config names a score and
// fixes its data type, range or categories; scores' writes (operations.ts) are checked against it.
import DataLoader from 'dataloader';
import { perRequest, type RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { NotFoundError, ValidationError, type ValidationIssue } from '../shared/errors.js';
import type { ConfigDataType, ScoreConfigInput, ScoreConfigPatch } from './inputs.js';

export type ScoreConfigRow = Prisma.ScoreConfigGetPayload<object>;

/** A category of a CATEGORICAL config: the label a score shows, the value it counts as. */
export interface ScoreCategory {
  label: string;
  value: number;
}

/** A BOOLEAN score's two categories: what `string_value` holds for 0 and 1. */
export const booleanCategories: readonly ScoreCategory[] = [
  { label: 'False', value: 0 },
  { label: 'True', value: 1 },
];

/** The categories a config allows, BOOLEAN's fixed two included. */
export function configCategories(config: Pick<ScoreConfigRow, 'dataType' | 'categories'>): ScoreCategory[] | null {
  if (config.dataType === 'BOOLEAN') return [...booleanCategories];
  if (config.dataType === 'CATEGORICAL') return (config.categories as unknown as ScoreCategory[] | null) ?? [];
  return null;
}

const configLoaderKey = Symbol('scores.configs');

/** Per request: score configs by id, for `Score.config`. */
export function scoreConfigLoader(ctx: RequestContext): DataLoader<string, ScoreConfigRow | null> {
  return perRequest(
    ctx,
    configLoaderKey,
    () =>
      new DataLoader<string, ScoreConfigRow | null>(async (ids) => {
        const byId = new Map((await scoreConfigsByIds(ctx, ids)).map((row) => [row.id, row]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
  );
}

function checkConfig(config: { dataType: string; minValue: number | null; maxValue: number | null; categories: ScoreCategory[] | null }, where: string): void {
  const issues: ValidationIssue[] = [];
  const fault = (field: string, msg: string) => issues.push({ loc: [where, field], msg, type: 'value_error' });
  if (config.dataType !== 'NUMERIC') {
    if (config.minValue !== null) fault('min_value', `Only a NUMERIC config has a range`);
    if (config.maxValue !== null) fault('max_value', `Only a NUMERIC config has a range`);
  } else if (config.minValue !== null && config.maxValue !== null && config.minValue > config.maxValue) {
    fault('max_value', `Input should be greater than or equal to min_value (${config.minValue})`);
  }
  if (config.dataType === 'CATEGORICAL') {
    const categories = config.categories ?? [];
    if (categories.length === 0) fault('categories', 'A CATEGORICAL config needs at least one category');
    if (new Set(categories.map((c) => c.label)).size < categories.length) fault('categories', 'Labels must be unique');
    if (new Set(categories.map((c) => c.value)).size < categories.length) fault('categories', 'Values must be unique');
  } else if (config.categories !== null && config.categories.length > 0) {
    fault(
      'categories',
      config.dataType === 'BOOLEAN' ? 'A BOOLEAN config has the fixed categories True (1) and False (0)' : 'Only a CATEGORICAL config has categories',
    );
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

/** A new config; 422 naming the field when its range or categories do not fit its data type. */
export async function createScoreConfig(ctx: Pick<RequestContext, 'db' | 'projectId'>, input: ScoreConfigInput, where = 'body'): Promise<ScoreConfigRow> {
  const values = {
    name: input.name,
    dataType: input.data_type,
    minValue: input.min_value ?? null,
    maxValue: input.max_value ?? null,
    categories: input.categories ?? null,
  };
  checkConfig(values, where);
  return ctx.db.scoreConfig.create({
    data: {
      projectId: ctx.projectId,
      ...values,
      categories: input.data_type === 'CATEGORICAL' ? (values.categories as Prisma.InputJsonValue) : undefined,
      description: input.description ?? null,
    },
  });
}

export interface ScoreConfigFilter {
  name?: string;
  data_type?: ConfigDataType;
  is_archived?: boolean;
}

/** The project's configs matching `filter`, by name then id (few per project: no pages). */
export function listScoreConfigs(ctx: Pick<RequestContext, 'db' | 'projectId'>, filter: ScoreConfigFilter = {}): Promise<ScoreConfigRow[]> {
  return ctx.db.scoreConfig.findMany({
    where: {
      projectId: ctx.projectId,
      ...(filter.name && { name: filter.name }),
      ...(filter.data_type && { dataType: filter.data_type }),
      ...(filter.is_archived !== undefined && { isArchived: filter.is_archived }),
    },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
  });
}

/** One config of the project; 404 for an unknown id and another project's alike. */
export async function getScoreConfig(ctx: Pick<RequestContext, 'db' | 'projectId'>, id: string): Promise<ScoreConfigRow> {
  const row = await ctx.db.scoreConfig.findFirst({ where: { id, projectId: ctx.projectId } });
  if (!row) throw new NotFoundError('Score config', id);
  return row;
}

/** The project's configs among `ids` (GraphQL's node loader). */
export function scoreConfigsByIds(ctx: Pick<RequestContext, 'db' | 'projectId'>, ids: readonly string[]): Promise<ScoreConfigRow[]> {
  return ctx.db.scoreConfig.findMany({ where: { projectId: ctx.projectId, id: { in: [...ids] } } });
}

/**
 * Changes a config (archives it with `is_archived: true`, brings it back with false); its data
 * type never changes. The result is checked whole, as a new config is. Scores already written
 * keep their values.
 */
export async function updateScoreConfig(
  ctx: Pick<RequestContext, 'db' | 'projectId'>,
  id: string,
  patch: ScoreConfigPatch,
  where = 'body',
): Promise<ScoreConfigRow> {
  const row = await getScoreConfig(ctx, id);
  const next = {
    dataType: row.dataType,
    minValue: patch.min_value === undefined ? row.minValue : patch.min_value,
    maxValue: patch.max_value === undefined ? row.maxValue : patch.max_value,
    categories: patch.categories === undefined ? (row.categories as unknown as ScoreCategory[] | null) : patch.categories,
  };
  checkConfig(next, where);
  return ctx.db.scoreConfig.update({
    where: { id: row.id },
    data: {
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.description !== undefined && { description: patch.description }),
      ...(patch.is_archived !== undefined && { isArchived: patch.is_archived }),
      minValue: next.minValue,
      maxValue: next.maxValue,
      ...(patch.categories !== undefined && row.dataType === 'CATEGORICAL' && { categories: next.categories as Prisma.InputJsonValue }),
    },
  });
}
