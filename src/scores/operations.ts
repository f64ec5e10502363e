// Writing and deleting scores (docs/scores.md); reads are in score-reads.ts, configs in
// score-configs.ts. A score keeps the ids of what it judges (a trace, a span, a session, an
// evaluation scenario) without a foreign key, so it may come before its trace; `scores` ranks below
// `observability` and `evaluations`, which call these functions (retention deletes a trace's
// scores, the evaluation runner writes its results as scenario scores).
import { v7 as uuidv7 } from 'uuid';
import type { Actor, RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { AssayError, ConflictError, ForbiddenError, NotFoundError, ValidationError, type ValidationIssue } from '../shared/errors.js';
import { jsonText, sqlDate, traceLockKeys, type BulkSql, type SqlValue, type Tx } from '../shared/sql.js';
import type { ConfigDataType, ScoreDataType, ScoreInput, ScoreSource, ScoreTarget } from './inputs.js';
import { booleanCategories, configCategories, type ScoreConfigRow } from './score-configs.js';

export type ScoreRow = Prisma.ScoreGetPayload<object>;

/** What the score operations need of a request: its database, project and caller. */
export type ScoreContext = Pick<RequestContext, 'db' | 'sql' | 'projectId' | 'principal'>;

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

/** What the checks need of a stored score with a requested id. */
type ExistingScore = Pick<ScoreRow, 'id' | 'target' | 'traceId' | 'spanId' | 'sessionId' | 'scenarioId' | 'authorType' | 'authorId'> & {
  /** Known when read through Prisma (the answered rows keep it). */
  createdAt?: Date;
};

interface WriteMode {
  /** Whether nothing is written when one input is refused; else the others are, and each is answered. */
  allOrNothing: boolean;
  /**
   * Writes the rows with `UPSERT_SUFFIX`, their traces' `locks` taken first; answers how many it
   * wrote. The database copies a trace's start onto its new scores under those locks, and taking
   * them before any row keeps a changed score's row lock from waiting on ingestion while ingestion
   * waits on it (docs/scores.md#in-the-trace-list).
   */
  write: (rows: SqlValue[][], locks: string[]) => Promise<number>;
  /** The configs the inputs name, by id. */
  configs: ReadonlyMap<string, ScoreConfigRow>;
  /** The stored scores of these ids. */
  readExisting: (ids: string[]) => Promise<ExistingScore[]>;
  /**
   * Read them before writing (for the answered rows' creation times, and a feedback key's author
   * check); else only when the upsert left some row unwritten, to say which id was taken.
   */
  readFirst: boolean;
}

/** A WriteMode's `write` inside the transaction of `tx`. */
const writeInside =
  (ctx: ScoreContext, tx: Tx): WriteMode['write'] =>
  async (rows, locks) => {
    await ctx.sql.lockKeys(tx, locks);
    return ctx.sql.insertRows(tx, 'Score', SCORE_COLUMNS, rows, UPSERT_SUFFIX);
  };

/** The configs `inputs` name, read with `db` (a Prisma client or transaction). */
async function configsOf(db: Pick<Prisma.TransactionClient, 'scoreConfig'>, projectId: string, inputs: readonly ScoreInput[]) {
  const ids = [...new Set(inputs.flatMap((input) => (input.config_id ? [input.config_id] : [])))];
  if (ids.length === 0) return new Map<string, ScoreConfigRow>();
  return new Map((await db.scoreConfig.findMany({ where: { projectId, id: { in: ids } } })).map((config) => [config.id, config]));
}

/**
 * Checks every input (its target, its value against its data type and config, an id already used
 * for another target, another author's id written by a feedback key) and writes those that pass
 * in one statement inside `tx` (none at all when one fails and `allOrNothing`). Answers each
 * input's outcome, in input order.
 */
async function checkAndWrite(ctx: ScoreContext, inputs: readonly ScoreInput[], options: UpsertOptions, mode: WriteMode): Promise<ScoreOutcome[]> {
  const at = options.at ?? bodyLocation(false);
  const author = options.author ?? ctx.principal.actor;
  const feedback = writesAsFeedback(ctx.principal);
  const defaultSource: ScoreSource = author.type === 'user' ? 'annotation' : 'api';
  const outcomes: (Resolved | AssayError)[] = inputs.map((input, index) => {
    const issues: ValidationIssue[] = [];
    const score = resolveScore(input, index, input.config_id ? mode.configs.get(input.config_id) : undefined, feedback, defaultSource, issues, at);
    return score ?? new ValidationError(issues);
  });
  const ids = [...new Set(outcomes.flatMap((outcome) => (outcome instanceof AssayError ? [] : [outcome.id])))];
  const readFirst = mode.readFirst || feedback;
  const existingOf = async () => new Map(ids.length === 0 ? [] : (await mode.readExisting(ids)).map((row) => [row.id, row]));
  const checkedAgainst = (existing: ReadonlyMap<string, ExistingScore>) =>
    outcomes.map((score) => {
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
  const existing = readFirst ? await existingOf() : new Map<string, ExistingScore>();
  const checked = checkedAgainst(existing);
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
        // The database sets these from the score's trace (docs/scores.md#in-the-trace-list); no
        // answer shows them, so the answered row does not read them back.
        traceStart: null,
        traceEnvironment: null,
      },
    ]),
  );
  const rows: SqlValue[][] = [...stored.values()].map((row) =>
    SCORE_COLUMNS.map((column) => (column === 'metadata' ? byId.get(row.id)!.metadata : (row[column] as SqlValue))),
  );
  const refused = checked.some((score) => score instanceof AssayError);
  if (rows.length > 0 && !(mode.allOrNothing && refused)) {
    const traceIds = new Set([...stored.values()].flatMap((row) => (row.traceId === null ? [] : [row.traceId])));
    const written = await mode.write(rows, traceLockKeys(ctx.projectId, traceIds));
    if (written !== rows.length) {
      // The rows left unwritten are those of ids taken for another target (the upsert's guard):
      // read now, the stored rows say which. All or nothing, the caller's error ends the
      // transaction, so nothing of it stays; else the others are written and each is answered.
      const recheck = checkedAgainst(await existingOf());
      if (!mode.allOrNothing) return recheck.map((score) => (score instanceof AssayError ? { error: score } : { row: stored.get(score.id)! }));
      const taken = !readFirst ? recheck.find((score) => score instanceof AssayError) : undefined;
      if (taken) throw taken;
      throw new ConflictError("A score id of this request was just written for another target: a score's target never changes");
    }
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
  const outcomes = await checkAndWrite(ctx, inputs, options, {
    allOrNothing: true,
    write: writeInside(ctx, tx),
    configs: await configsOf(tx, ctx.projectId, inputs),
    readExisting: (ids) => tx.score.findMany({ where: { projectId: ctx.projectId, id: { in: ids } } }),
    readFirst: true,
  });
  return rowsOrThrow(outcomes);
}

/** The rows of `outcomes`, or the first refusal (every input's faults in one ValidationError). */
function rowsOrThrow(outcomes: readonly ScoreOutcome[]): ScoreRow[] {
  const errors = outcomes.flatMap((outcome) => (outcome.error ? [outcome.error] : []));
  const invalid = errors.filter((error): error is ValidationError => error instanceof ValidationError);
  if (invalid.length > 0) throw new ValidationError(invalid.flatMap((error) => error.issues));
  if (errors.length > 0) throw errors[0];
  return outcomes.map((outcome) => outcome.row!);
}

/**
 * What an ingestion batch needs (Langfuse's, which answers ids and statuses per event): every
 * input checked as `upsertScores` checks it, and those that pass written in one statement of their
 * own (`BulkSql.writeRows`: on PostgreSQL one round trip, no transaction around it), the stored
 * scores of the ids read only when the upsert leaves one unwritten (an id taken for another
 * target) or a feedback key writes (docs/scores.md#ids-idempotent-writes). Answers each input's
 * refusal, or null for one stored; a refused input does not stop the others.
 */
export async function storeScores(ctx: ScoreContext, inputs: readonly ScoreInput[], options: UpsertOptions = {}): Promise<(AssayError | null)[]> {
  if (inputs.length === 0) return [];
  const outcomes = await checkAndWrite(ctx, inputs, options, {
    allOrNothing: false,
    write: (rows, locks) => ctx.sql.writeRows('Score', SCORE_COLUMNS, rows, UPSERT_SUFFIX, locks),
    configs: await configsOf(ctx.db, ctx.projectId, inputs),
    readExisting: (ids) =>
      ctx.sql.all<ExistingScore>(
        `SELECT "id", "target", "traceId", "spanId", "sessionId", "scenarioId", "authorType", "authorId" FROM "Score"
         WHERE "projectId" = ? AND "id" IN (${ctx.sql.jsonValues('?')})`,
        [ctx.projectId, JSON.stringify(ids)],
      ),
    readFirst: false,
  });
  return outcomes.map((outcome) => outcome.error ?? null);
}

/**
 * Writes the inputs that pass and answers each one's outcome (for Langfuse's ingestion, which
 * answers per event): a refused input is reported, never written, and does not stop the others.
 */
export function upsertScoresPartly(ctx: ScoreContext, inputs: readonly ScoreInput[], options: UpsertOptions = {}): Promise<ScoreOutcome[]> {
  if (inputs.length === 0) return Promise.resolve([]);
  return ctx.db.$transaction(async (tx) =>
    checkAndWrite(ctx, inputs, options, {
      allOrNothing: false,
      write: writeInside(ctx, tx),
      configs: await configsOf(tx, ctx.projectId, inputs),
      readExisting: (ids) => tx.score.findMany({ where: { projectId: ctx.projectId, id: { in: ids } } }),
      readFirst: true,
    }),
  );
}

function describeTarget(row: ExistingScore): string {
  if (row.target === 'span') return `span ${row.spanId} of trace ${row.traceId}`;
  return `${row.target} ${row.traceId ?? row.sessionId ?? row.scenarioId}`;
}

/** Writes scores in a transaction of their own (`writeScores`); the one write REST and GraphQL call. */
export function upsertScores(ctx: ScoreContext, inputs: readonly ScoreInput[], options: UpsertOptions = {}): Promise<ScoreRow[]> {
  return ctx.db.$transaction((tx) => writeScores(ctx, tx, inputs, options));
}

// ---------------------------------------------------------------------------------------------
// Deleting scores

/**
 * Deletes one score; 404 for an unknown id and another project's alike. Under its trace's lock, as
 * every score write: the trace's score names are then written again by the database's trigger,
 * which takes that lock too, and taking it before the row keeps ingestion from a deadlock with it
 * (docs/scores.md#in-the-trace-list).
 */
export async function deleteScore(ctx: Pick<ScoreContext, 'db' | 'sql' | 'projectId'>, id: string): Promise<void> {
  const { projectId } = ctx;
  const count = await ctx.db.$transaction(async (tx) => {
    const score = await tx.score.findUnique({ where: { projectId_id: { projectId, id } }, select: { traceId: true } });
    if (!score) return 0;
    if (score.traceId !== null) await ctx.sql.lockKeys(tx, traceLockKeys(projectId, [score.traceId]));
    return (await tx.score.deleteMany({ where: { projectId, id } })).count;
  });
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

/** How many traces' scores `deleteScoresOfProjectBefore` deletes in one transaction, under their locks. */
const TRACES_PER_DELETE = 500;

/**
 * Deletes the project's scores created before `before`, whatever they name (retention: a
 * session's, a scenario's, and those of traces that never arrived). Answers how many went. Those
 * naming a trace go a slice of traces at a time under the traces' locks, taken before the rows
 * as every score write takes them: the trigger keeping the traces' score names takes them too
 * (docs/observability.md#roll-ups), and after the rows it could meet an ingestion batch of one
 * of those traces in a deadlock on PostgreSQL.
 */
export async function deleteScoresOfProjectBefore(ctx: Pick<ScoreContext, 'db' | 'sql'>, projectId: string, before: Date): Promise<number> {
  const { db, sql } = ctx;
  const older = `"projectId" = ? AND "createdAt" < ${sql.timestamp('?')}`;
  let count = 0;
  for (;;) {
    const deleted = await sql.transaction(async (tx) => {
      const traces = await sql.query<{ traceId: string }>(
        tx,
        `SELECT DISTINCT "traceId" AS "traceId" FROM "Score" WHERE ${older} AND "traceId" IS NOT NULL LIMIT ${TRACES_PER_DELETE}`,
        [projectId, sqlDate(before)],
      );
      if (traces.length === 0) return null;
      const ids = traces.map((row) => row.traceId);
      await sql.lockKeys(tx, traceLockKeys(projectId, ids));
      return sql.run(tx, `DELETE FROM "Score" WHERE ${older} AND "traceId" IN (${sql.jsonValues('?')})`, [projectId, sqlDate(before), JSON.stringify(ids)]);
    });
    if (deleted === null) break;
    count += deleted;
  }
  return count + (await db.score.deleteMany({ where: { projectId, createdAt: { lt: before }, traceId: null } })).count;
}
