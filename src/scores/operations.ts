// Scores and score configs (docs/scores.md): the only code touching the Score and ScoreConfig
// tables. A score keeps the ids of what it judges (a trace, a span, a session, an evaluation
// scenario) without a foreign key, so it may come before its trace; `scores` ranks below
// `observability` and `evaluations`, which call these functions (retention deletes a trace's
// scores, the evaluation runner writes its results as scenario scores).
import DataLoader from 'dataloader';
import { v7 as uuidv7 } from 'uuid';
import { perRequest, type Actor, type RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { AssayError, ConflictError, ForbiddenError, NotFoundError, ValidationError, type ValidationIssue } from '../shared/errors.js';
import { jsonText, type BulkSql, type SqlValue, type Tx } from '../shared/sql.js';
import type { ConfigDataType, ScoreConfigInput, ScoreConfigPatch, ScoreDataType, ScoreInput, ScoreListQuery, ScoreSource, ScoreTarget } from './inputs.js';

export type ScoreRow = Prisma.ScoreGetPayload<object>;
export type ScoreConfigRow = Prisma.ScoreConfigGetPayload<object>;

/** What the score operations need of a request: its database, project and caller. */
export type ScoreContext = Pick<RequestContext, 'db' | 'sql' | 'projectId' | 'principal'>;

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

/**
 * Whether the caller writes as a feedback key (the `feedback` scope without `write`): it writes
 * scores of source "api" only and never changes another author's (docs/scores.md#feedback-keys).
 */
export function writesAsFeedback(principal: ScoreContext['principal']): boolean {
  return principal.scopes.includes('feedback') && !principal.scopes.includes('write');
}

// ---------------------------------------------------------------------------------------------
// Writing scores

/** Where a fault of input `index`'s `field` is reported: `['body', 2, 'value']` by default. */
export type IssueLocation = (index: number, field: string) => (string | number)[];

export const bodyLocation =
  (single: boolean): IssueLocation =>
  (index, field) =>
    single ? ['body', field] : ['body', index, field];

export interface UpsertOptions {
  /** Where faults are reported; `bodyLocation(false)` by default. */
  at?: IssueLocation;
  /** Who writes; the caller's actor by default (the evaluation runner writes as the service). */
  author?: Actor;
}

/** A score ready to store: its target resolved, its value checked against its data type and config. */
interface Resolved {
  id: string;
  target: ScoreTarget;
  traceId: string | null;
  spanId: string | null;
  sessionId: string | null;
  scenarioId: string | null;
  name: string;
  dataType: ScoreDataType;
  value: number | null;
  stringValue: string | null;
  comment: string | null;
  metadata: string | null;
  source: ScoreSource;
  configId: string | null;
}

const targetIds = { trace: ['traceId'], span: ['traceId', 'spanId'], session: ['sessionId'], scenario: ['scenarioId'] } as const;
const idFields = { traceId: 'trace_id', spanId: 'span_id', sessionId: 'session_id', scenarioId: 'scenario_id' } as const;
type IdKey = keyof typeof idFields;

/** The categories a config allows, BOOLEAN's fixed two included. */
export function configCategories(config: Pick<ScoreConfigRow, 'dataType' | 'categories'>): ScoreCategory[] | null {
  if (config.dataType === 'BOOLEAN') return [...booleanCategories];
  if (config.dataType === 'CATEGORICAL') return (config.categories as unknown as ScoreCategory[] | null) ?? [];
  return null;
}

function resolveTarget(input: ScoreInput, fault: (field: string, msg: string) => void): Pick<Resolved, 'target' | IdKey> | null {
  const ids = { traceId: input.trace_id ?? null, spanId: input.span_id ?? null, sessionId: input.session_id ?? null, scenarioId: input.scenario_id ?? null };
  const target: ScoreTarget | undefined =
    input.target ?? (ids.scenarioId ? 'scenario' : ids.spanId ? 'span' : ids.traceId ? 'trace' : ids.sessionId ? 'session' : undefined);
  if (!target) {
    fault('target', 'Give trace_id, span_id (with trace_id), session_id or scenario_id: what the score judges');
    return null;
  }
  const needed: readonly IdKey[] = targetIds[target];
  let ok = true;
  for (const key of Object.keys(ids) as IdKey[]) {
    if (needed.includes(key) && !ids[key]) {
      fault(idFields[key], `Field required for target ${target}`);
      ok = false;
    } else if (!needed.includes(key) && ids[key]) {
      fault(idFields[key], `Not allowed for target ${target}`);
      ok = false;
    }
  }
  return ok ? { target, ...ids } : null;
}

function inferredType(input: ScoreInput): ScoreDataType | undefined {
  if (typeof input.value === 'boolean') return 'BOOLEAN';
  if (typeof input.value === 'string') return 'CATEGORICAL';
  if (typeof input.value === 'number') return 'NUMERIC';
  if (input.string_value != null) return 'TEXT';
  return undefined;
}

/** The value columns of a score of `dataType`, or a fault naming the field. */
function resolveValue(
  input: ScoreInput,
  dataType: ScoreDataType,
  config: ScoreConfigRow | undefined,
  fault: (field: string, msg: string) => void,
): Pick<Resolved, 'value' | 'stringValue'> | null {
  const { value } = input;
  const stringValue = input.string_value ?? null;
  switch (dataType) {
    case 'NUMERIC': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return (fault('value', 'A NUMERIC score needs a finite number'), null);
      if (stringValue !== null) return (fault('string_value', 'A NUMERIC score has no string_value'), null);
      if (config?.minValue != null && value < config.minValue)
        return (fault('value', `Input should be greater than or equal to ${config.minValue} (score config ${config.name})`), null);
      if (config?.maxValue != null && value > config.maxValue)
        return (fault('value', `Input should be less than or equal to ${config.maxValue} (score config ${config.name})`), null);
      return { value, stringValue: null };
    }
    case 'BOOLEAN': {
      const fromLabel = stringValue === null ? undefined : booleanCategories.find((category) => category.label.toLowerCase() === stringValue.toLowerCase());
      if (stringValue !== null && !fromLabel) return (fault('string_value', 'A BOOLEAN score\'s string_value is "True" or "False"'), null);
      const number = typeof value === 'boolean' ? Number(value) : typeof value === 'number' ? value : value == null ? fromLabel?.value : undefined;
      if (number !== 0 && number !== 1) return (fault('value', 'A BOOLEAN score needs true/false or 1/0'), null);
      if (fromLabel && fromLabel.value !== number) return (fault('string_value', `"${stringValue}" contradicts the value ${number}`), null);
      return { value: number, stringValue: booleanCategories[number].label };
    }
    case 'CATEGORICAL': {
      const label = typeof value === 'string' ? value : stringValue;
      if (typeof value === 'string' && stringValue !== null && stringValue !== value)
        return (fault('string_value', 'Differs from the label given as value'), null);
      if (typeof value === 'boolean') return (fault('value', "A CATEGORICAL score's value is the category's value or its label"), null);
      const number = typeof value === 'number' ? value : null;
      const categories = config ? configCategories(config) : null;
      if (!categories) {
        if (label === null) return (fault('string_value', "A CATEGORICAL score needs the category's label (string_value, or value as a string)"), null);
        return { value: number, stringValue: label };
      }
      const category = label !== null ? categories.find((c) => c.label === label) : number !== null ? categories.find((c) => c.value === number) : undefined;
      if (label === null && number === null) return (fault('value', 'A CATEGORICAL score needs a category: its label or its value'), null);
      if (!category)
        return (
          fault(
            label !== null ? (typeof value === 'string' ? 'value' : 'string_value') : 'value',
            `Not a category of score config ${config!.name}: ${categories.map((c) => `${c.label} (${c.value})`).join(', ')}`,
          ),
          null
        );
      if (number !== null && category.value !== number) return (fault('value', `The category ${category.label} has the value ${category.value}`), null);
      return { value: category.value, stringValue: category.label };
    }
    case 'TEXT': {
      const text = typeof value === 'string' ? value : stringValue;
      if (typeof value === 'string' && stringValue !== null && stringValue !== value)
        return (fault('string_value', 'Differs from the text given as value'), null);
      if (typeof value === 'number' || typeof value === 'boolean') return (fault('value', 'A TEXT score has no number: give the text'), null);
      if (text === null || text === '') return (fault('string_value', 'A TEXT score needs its text'), null);
      return { value: null, stringValue: text };
    }
  }
}

function resolveScore(
  input: ScoreInput,
  index: number,
  config: ScoreConfigRow | undefined,
  feedback: boolean,
  defaultSource: ScoreSource,
  issues: ValidationIssue[],
  at: IssueLocation,
): Resolved | null {
  const before = issues.length;
  const fault = (field: string, msg: string) => issues.push({ loc: at(index, field), msg, type: 'value_error' });
  const target = resolveTarget(input, fault);
  if (input.config_id && !config) fault('config_id', `Score config ${input.config_id} not found`);
  else if (config?.isArchived) fault('config_id', `Score config ${config.name} is archived: it takes no new scores`);
  if (config && input.name !== undefined && input.name !== config.name) fault('name', `The score config ${config.id} is named ${config.name}`);
  const name = input.name ?? config?.name;
  if (name === undefined) fault('name', 'Field required');
  if (config && input.data_type !== undefined && input.data_type !== config.dataType)
    fault('data_type', `The score config ${config.name} is ${config.dataType}`);
  const dataType = config ? (config.dataType as ConfigDataType) : (input.data_type ?? inferredType(input));
  if (dataType === undefined) fault('value', 'Field required: a number, a boolean, a label or a text');
  if (feedback && input.source !== undefined && input.source !== 'api') fault('source', 'A feedback key writes scores of source "api" only');
  const value = dataType === undefined ? null : resolveValue(input, dataType, config, fault);
  if (issues.length > before || !target || !value || name === undefined || dataType === undefined) return null;
  return {
    id: input.id ?? uuidv7(),
    ...target,
    name,
    dataType,
    ...value,
    comment: input.comment ?? null,
    metadata: input.metadata == null ? null : jsonText(input.metadata),
    source: input.source ?? defaultSource,
    configId: config?.id ?? null,
  };
}

/** The columns of a Score row, in the order `writeScores` writes them (bench/scores inserts the same). */
export const SCORE_COLUMNS = [
  'id',
  'projectId',
  'target',
  'traceId',
  'spanId',
  'sessionId',
  'scenarioId',
  'name',
  'dataType',
  'value',
  'stringValue',
  'comment',
  'metadata',
  'source',
  'authorType',
  'authorId',
  'authorLabel',
  'configId',
  'createdAt',
  'updatedAt',
] as const;

// On a taken id the score is updated, never its creation time, and only while it judges the same
// thing: a row another request just wrote for another target is left alone, and the count shows it.
const UPSERT_SUFFIX =
  'ON CONFLICT ("projectId", "id") DO UPDATE SET ' +
  SCORE_COLUMNS.filter((column) => !['id', 'projectId', 'createdAt'].includes(column))
    .map((column) => `"${column}" = excluded."${column}"`)
    .join(', ') +
  ' WHERE "Score"."target" = excluded."target"' +
  ['traceId', 'spanId', 'sessionId', 'scenarioId'].map((column) => ` AND "Score"."${column}" IS NOT DISTINCT FROM excluded."${column}"`).join('');

/** One input's fate in `writeScoresPartly`: its stored row, or why it was refused. */
export type ScoreOutcome = { row: ScoreRow; error?: undefined } | { row?: undefined; error: AssayError };

/**
 * Checks every input (its target, its value against its data type and config, an id already used
 * for another target, another author's id written by a feedback key) and writes those that pass
 * in one statement inside `tx` (none at all when one fails and `allOrNothing`). Answers each
 * input's outcome, in input order.
 */
async function checkAndWrite(
  ctx: ScoreContext,
  tx: Prisma.TransactionClient,
  inputs: readonly ScoreInput[],
  options: UpsertOptions,
  { allOrNothing }: { allOrNothing: boolean },
): Promise<ScoreOutcome[]> {
  const at = options.at ?? bodyLocation(false);
  const author = options.author ?? ctx.principal.actor;
  const feedback = writesAsFeedback(ctx.principal);
  const defaultSource: ScoreSource = author.type === 'user' ? 'annotation' : 'api';
  const configIds = [...new Set(inputs.flatMap((input) => (input.config_id ? [input.config_id] : [])))];
  const configs = new Map(
    configIds.length === 0
      ? []
      : (await tx.scoreConfig.findMany({ where: { projectId: ctx.projectId, id: { in: configIds } } })).map((config) => [config.id, config]),
  );
  const outcomes: (Resolved | AssayError)[] = inputs.map((input, index) => {
    const issues: ValidationIssue[] = [];
    const score = resolveScore(input, index, input.config_id ? configs.get(input.config_id) : undefined, feedback, defaultSource, issues, at);
    return score ?? new ValidationError(issues);
  });
  const ids = [...new Set(outcomes.flatMap((outcome) => (outcome instanceof AssayError ? [] : [outcome.id])))];
  const existing = new Map(
    ids.length === 0 ? [] : (await tx.score.findMany({ where: { projectId: ctx.projectId, id: { in: ids } } })).map((row) => [row.id, row]),
  );
  const checked = outcomes.map((score) => {
    const row = score instanceof AssayError ? undefined : existing.get(score.id);
    if (!row || score instanceof AssayError) return score;
    if (
      row.target !== score.target ||
      row.traceId !== score.traceId ||
      row.spanId !== score.spanId ||
      row.sessionId !== score.sessionId ||
      row.scenarioId !== score.scenarioId
    )
      return new ConflictError(
        `Score ${row.id} exists for another ${row.target === score.target ? 'id' : 'target'} (${describeTarget(row)}): a score's target never changes`,
      );
    if (feedback && (row.authorType !== author.type || row.authorId !== author.id))
      return new ForbiddenError(`Score ${row.id} was written by another author: a feedback key changes only its own scores`);
    return score;
  });
  // The same id twice in one request: the last one stands, as if sent one after the other.
  const byId = new Map(checked.flatMap((score) => (score instanceof AssayError ? [] : [[score.id, score] as const])));
  const now = new Date();
  const stored = new Map(
    [...byId.values()].map((score): [string, ScoreRow] => [
      score.id,
      {
        ...score,
        projectId: ctx.projectId,
        metadata: score.metadata === null ? null : (JSON.parse(score.metadata) as Prisma.JsonValue),
        authorType: author.type,
        authorId: author.id,
        authorLabel: author.label,
        createdAt: existing.get(score.id)?.createdAt ?? now,
        updatedAt: now,
      },
    ]),
  );
  const rows: SqlValue[][] = [...stored.values()].map((row) =>
    SCORE_COLUMNS.map((column) => (column === 'metadata' ? byId.get(row.id)!.metadata : (row[column] as SqlValue))),
  );
  const refused = checked.some((score) => score instanceof AssayError);
  if (rows.length > 0 && !(allOrNothing && refused)) {
    const written = await ctx.sql.insertRows(tx, 'Score', SCORE_COLUMNS, rows, UPSERT_SUFFIX);
    if (written !== rows.length) throw new ConflictError("A score id of this request was just written for another target: a score's target never changes");
  }
  return checked.map((score) => (score instanceof AssayError ? { error: score } : { row: stored.get(score.id)! }));
}

/**
 * Writes scores inside the transaction `tx` (a Prisma transaction client): new ids are created,
 * known ones updated (idempotent retries). Every input is checked first and nothing is written
 * unless all pass: the faults of all come in one 422; else an id already used for another target
 * is a 409, another author's score written by a feedback key a 403
 * (docs/scores.md#ids-idempotent-writes). Answers the stored rows, in input order.
 */
export async function writeScores(
  ctx: ScoreContext,
  tx: Prisma.TransactionClient,
  inputs: readonly ScoreInput[],
  options: UpsertOptions = {},
): Promise<ScoreRow[]> {
  if (inputs.length === 0) return [];
  const outcomes = await checkAndWrite(ctx, tx, inputs, options, { allOrNothing: true });
  const errors = outcomes.flatMap((outcome) => (outcome.error ? [outcome.error] : []));
  const invalid = errors.filter((error): error is ValidationError => error instanceof ValidationError);
  if (invalid.length > 0) throw new ValidationError(invalid.flatMap((error) => error.issues));
  if (errors.length > 0) throw errors[0];
  return outcomes.map((outcome) => outcome.row!);
}

/**
 * Writes the inputs that pass and answers each one's outcome (for Langfuse's ingestion, which
 * answers per event): a refused input is reported, never written, and does not stop the others.
 */
export function upsertScoresPartly(ctx: ScoreContext, inputs: readonly ScoreInput[], options: UpsertOptions = {}): Promise<ScoreOutcome[]> {
  if (inputs.length === 0) return Promise.resolve([]);
  return ctx.db.$transaction((tx) => checkAndWrite(ctx, tx, inputs, options, { allOrNothing: false }));
}

function describeTarget(row: ScoreRow): string {
  if (row.target === 'span') return `span ${row.spanId} of trace ${row.traceId}`;
  return `${row.target} ${row.traceId ?? row.sessionId ?? row.scenarioId}`;
}

/** Writes scores in a transaction of their own (`writeScores`); the one write REST and GraphQL call. */
export function upsertScores(ctx: ScoreContext, inputs: readonly ScoreInput[], options: UpsertOptions = {}): Promise<ScoreRow[]> {
  return ctx.db.$transaction((tx) => writeScores(ctx, tx, inputs, options));
}

// ---------------------------------------------------------------------------------------------
// Reading scores

/**
 * The filter of `GET /scores` and GraphQL `scores`, every part optional; besides, for callers
 * above (Langfuse's API): `ids`, and `trace_ids` (the traces another filter found).
 */
export type ScoreFilter = Omit<Partial<ScoreListQuery>, 'limit' | 'cursor'> & { ids?: readonly string[]; trace_ids?: readonly string[] };

export interface ScorePage {
  scores: ScoreRow[];
  /** Pass as `after` for the next page; null on the last. */
  nextCursor: string | null;
}

/** A score's place in the list (newest first): its creation time and id, opaque to clients. */
export function scoreCursor(row: Pick<ScoreRow, 'createdAt' | 'id'>): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString('base64url');
}

function decodeCursor(cursor: string, loc: (string | number)[]): { createdAt: Date; id: string } {
  try {
    const [time, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const createdAt = new Date(time as string);
    if (typeof time === 'string' && typeof id === 'string' && !Number.isNaN(createdAt.getTime())) return { createdAt, id };
  } catch {
    // Not ours: refused below.
  }
  throw ValidationError.at(loc, 'Invalid cursor');
}

function scoreWhere(projectId: string, filter: ScoreFilter): Prisma.ScoreWhereInput {
  return {
    projectId,
    ...(filter.ids && { id: { in: [...filter.ids] } }),
    ...(filter.trace_ids && { traceId: { in: [...filter.trace_ids] } }),
    ...(filter.trace_id && { traceId: filter.trace_id }),
    ...(filter.span_id && { spanId: filter.span_id }),
    ...(filter.session_id && { sessionId: filter.session_id }),
    ...(filter.scenario_id && { scenarioId: filter.scenario_id }),
    ...(filter.target && { target: filter.target }),
    ...(filter.name && { name: filter.name }),
    ...(filter.source && { source: filter.source }),
    ...(filter.data_type && { dataType: filter.data_type }),
    ...(filter.config_id && { configId: filter.config_id }),
    ...((filter.started_after || filter.started_before) && {
      createdAt: { ...(filter.started_after && { gte: filter.started_after }), ...(filter.started_before && { lt: filter.started_before }) },
    }),
  };
}

/**
 * A page of the project's scores matching `filter`, newest first (creation time, then id).
 * `page.after` is a `scoreCursor`; a cursor that is not one is a 422 at `cursorLoc`. `page.skip`
 * skips that many more (Langfuse's numbered pages).
 */
export async function listScores(
  ctx: Pick<ScoreContext, 'db' | 'projectId'>,
  filter: ScoreFilter,
  page: { first: number; after?: string | null; skip?: number },
  cursorLoc: (string | number)[] = ['query', 'cursor'],
): Promise<ScorePage> {
  const where = scoreWhere(ctx.projectId, filter);
  if (page.after) {
    const { createdAt, id } = decodeCursor(page.after, cursorLoc);
    where.OR = [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }];
  }
  const rows = await ctx.db.score.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.skip, take: page.first + 1 });
  const scores = rows.slice(0, page.first);
  return { scores, nextCursor: rows.length > page.first ? scoreCursor(scores.at(-1)!) : null };
}

/** How many of the project's scores match `filter`. */
export function countScores(ctx: Pick<ScoreContext, 'db' | 'projectId'>, filter: ScoreFilter): Promise<number> {
  return ctx.db.score.count({ where: scoreWhere(ctx.projectId, filter) });
}

/** One score of the project; 404 for an unknown id and another project's alike. */
export async function getScore(ctx: Pick<ScoreContext, 'db' | 'projectId'>, id: string): Promise<ScoreRow> {
  const row = await ctx.db.score.findUnique({ where: { projectId_id: { projectId: ctx.projectId, id } } });
  if (!row) throw new NotFoundError('Score', id);
  return row;
}

/** What scores are read by for a batch of targets (GraphQL's loaders of `Trace.scores`, `Span.scores`, …). */
export type ScoreTargetKey = 'traceId' | 'spanId' | 'sessionId' | 'scenarioId';

/**
 * The scores of each of `ids` (by `key`), oldest first, in `ids`' order: one query for a batch.
 * By `traceId` every score naming the trace comes, its spans' too; `Trace.scores` keeps the
 * trace's own (target "trace") where it wants only those.
 */
export async function scoresOf(ctx: Pick<ScoreContext, 'db' | 'projectId'>, key: ScoreTargetKey, ids: readonly string[]): Promise<ScoreRow[][]> {
  const rows = await ctx.db.score.findMany({
    where: { projectId: ctx.projectId, [key]: { in: [...new Set(ids)] } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const grouped = new Map<string, ScoreRow[]>();
  for (const row of rows) {
    const id = row[key]!;
    grouped.set(id, [...(grouped.get(id) ?? []), row]);
  }
  return ids.map((id) => grouped.get(id) ?? []);
}

const loaderKeys: Record<ScoreTargetKey, symbol> = {
  traceId: Symbol('scores.byTrace'),
  spanId: Symbol('scores.bySpan'),
  sessionId: Symbol('scores.bySession'),
  scenarioId: Symbol('scores.byScenario'),
};

/** Per request: the scores of traces (spans, sessions, scenarios) loaded together, for GraphQL's `scores` fields. */
export function scoresLoader(ctx: RequestContext, key: ScoreTargetKey): DataLoader<string, ScoreRow[]> {
  return perRequest(ctx, loaderKeys[key], () => new DataLoader<string, ScoreRow[]>((ids) => scoresOf(ctx, key, ids), { maxBatchSize: 500 }));
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

// ---------------------------------------------------------------------------------------------
// Deleting scores

/** Deletes one score; 404 for an unknown id and another project's alike. */
export async function deleteScore(ctx: Pick<ScoreContext, 'db' | 'projectId'>, id: string): Promise<void> {
  const { count } = await ctx.db.score.deleteMany({ where: { projectId: ctx.projectId, id } });
  if (count === 0) throw new NotFoundError('Score', id);
}

/**
 * Deletes every score naming one of `traceIds` (a trace's and its spans'), inside the raw-SQL
 * transaction `tx` that deletes the traces (observability/retention). Answers how many went.
 */
export function deleteScoresOfTraces(sql: BulkSql, tx: Tx, projectId: string, traceIds: readonly string[]): Promise<number> {
  if (traceIds.length === 0) return Promise.resolve(0);
  return sql.run(tx, `DELETE FROM "Score" WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')})`, [projectId, JSON.stringify(traceIds)]);
}

/** Deletes the scores of the spans `spans` (target "span"), inside `tx` (a user's spans deleted). */
export function deleteScoresOfSpans(sql: BulkSql, tx: Tx, projectId: string, spans: readonly { traceId: string; spanId: string }[]): Promise<number> {
  if (spans.length === 0) return Promise.resolve(0);
  return sql.run(
    tx,
    `DELETE FROM "Score" WHERE "projectId" = ? AND "target" = 'span' AND "spanId" IN (${sql.jsonValues('?')})
       AND ("traceId" || ' ' || "spanId") IN (${sql.jsonValues('?')})`,
    [projectId, JSON.stringify(spans.map((span) => span.spanId)), JSON.stringify(spans.map((span) => `${span.traceId} ${span.spanId}`))],
  );
}

/** Deletes the scores of evaluation scenarios (target "scenario"), inside the transaction deleting them. */
export async function deleteScoresOfScenarios(tx: Prisma.TransactionClient, projectId: string, scenarioIds: readonly string[]): Promise<number> {
  let count = 0;
  // In slices: a list of ids is bound as one parameter each.
  for (let start = 0; start < scenarioIds.length; start += 10_000) {
    count += (await tx.score.deleteMany({ where: { projectId, scenarioId: { in: scenarioIds.slice(start, start + 10_000) } } })).count;
  }
  return count;
}

/**
 * Deletes the project's scores created before `before`, whatever they name (retention: a
 * session's, a scenario's, and those of traces that never arrived). Answers how many went.
 */
export async function deleteScoresOfProjectBefore(db: Pick<ScoreContext, 'db'>['db'], projectId: string, before: Date): Promise<number> {
  const { count } = await db.score.deleteMany({ where: { projectId, createdAt: { lt: before } } });
  return count;
}

// ---------------------------------------------------------------------------------------------
// Score configs

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
export async function createScoreConfig(ctx: Pick<ScoreContext, 'db' | 'projectId'>, input: ScoreConfigInput, where = 'body'): Promise<ScoreConfigRow> {
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
export function listScoreConfigs(ctx: Pick<ScoreContext, 'db' | 'projectId'>, filter: ScoreConfigFilter = {}): Promise<ScoreConfigRow[]> {
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
export async function getScoreConfig(ctx: Pick<ScoreContext, 'db' | 'projectId'>, id: string): Promise<ScoreConfigRow> {
  const row = await ctx.db.scoreConfig.findFirst({ where: { id, projectId: ctx.projectId } });
  if (!row) throw new NotFoundError('Score config', id);
  return row;
}

/** The project's configs among `ids` (GraphQL's node loader). */
export function scoreConfigsByIds(ctx: Pick<ScoreContext, 'db' | 'projectId'>, ids: readonly string[]): Promise<ScoreConfigRow[]> {
  return ctx.db.scoreConfig.findMany({ where: { projectId: ctx.projectId, id: { in: [...ids] } } });
}

/**
 * Changes a config (archives it with `is_archived: true`, brings it back with false); its data
 * type never changes. The result is checked whole, as a new config is. Scores already written
 * keep their values.
 */
export async function updateScoreConfig(
  ctx: Pick<ScoreContext, 'db' | 'projectId'>,
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

// ---------------------------------------------------------------------------------------------
// Searching scores by lists of values (Langfuse's public API, docs/langfuse.md)

/** A wider filter than ScoreFilter: each list matches any of its values, the parts all at once. */
export interface ScoreSearch {
  ids?: string[];
  names?: string[];
  sources?: ScoreSource[];
  dataTypes?: ScoreDataType[];
  configIds?: string[];
  traceIds?: string[];
  spanIds?: string[];
  sessionIds?: string[];
  /** Scores written by these signed-in users. */
  authorUserIds?: string[];
  /** The value compared with a number (`value >= 3`). */
  compare?: { operator: 'lt' | 'gt' | 'lte' | 'gte' | 'equals' | 'not'; value: number };
  /** The value is one of these numbers (NUMERIC, BOOLEAN as 1/0). */
  values?: number[];
  /** The label is one of these (CATEGORICAL). */
  stringValues?: string[];
  valueMin?: number;
  valueMax?: number;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdBefore?: Date;
}

function searchWhere(projectId: string, search: ScoreSearch): Prisma.ScoreWhereInput {
  const anyOf = <T>(values: T[] | undefined) => (values === undefined ? undefined : { in: values });
  const value: Prisma.FloatNullableFilter = {
    ...(search.compare && { [search.compare.operator]: search.compare.value }),
    ...(search.values && { in: search.values }),
    ...(search.valueMin !== undefined && { gte: search.valueMin }),
    ...(search.valueMax !== undefined && { lte: search.valueMax }),
  };
  return {
    projectId,
    id: anyOf(search.ids),
    name: anyOf(search.names),
    source: anyOf(search.sources),
    dataType: anyOf(search.dataTypes),
    configId: anyOf(search.configIds),
    traceId: anyOf(search.traceIds),
    spanId: anyOf(search.spanIds),
    sessionId: anyOf(search.sessionIds),
    ...(search.authorUserIds && { authorType: 'user', authorId: { in: search.authorUserIds } }),
    ...(Object.keys(value).length > 0 && { value }),
    stringValue: anyOf(search.stringValues),
    ...((search.createdFrom || search.createdBefore) && {
      createdAt: { ...(search.createdFrom && { gte: search.createdFrom }), ...(search.createdBefore && { lt: search.createdBefore }) },
    }),
  };
}

/**
 * A page of the project's scores matching `search`, newest first (creation time, then id): by
 * `offset` (Langfuse's numbered pages) or after a `scoreCursor` (a cursor that is not one is a
 * 422 at `['query', 'cursor']`).
 */
export async function searchScores(
  ctx: Pick<ScoreContext, 'db' | 'projectId'>,
  search: ScoreSearch,
  page: { limit: number; offset?: number; after?: string | null },
): Promise<ScorePage> {
  const where = searchWhere(ctx.projectId, search);
  if (page.after) {
    const { createdAt, id } = decodeCursor(page.after, ['query', 'cursor']);
    where.AND = [{ OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }] }];
  }
  const rows = await ctx.db.score.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.offset, take: page.limit + 1 });
  const scores = rows.slice(0, page.limit);
  return { scores, nextCursor: rows.length > page.limit ? scoreCursor(scores.at(-1)!) : null };
}

/** How many of the project's scores match `search`. */
export function countSearchedScores(ctx: Pick<ScoreContext, 'db' | 'projectId'>, search: ScoreSearch): Promise<number> {
  return ctx.db.score.count({ where: searchWhere(ctx.projectId, search) });
}
