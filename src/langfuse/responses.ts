// What Langfuse's public API answers, in its shapes (docs/langfuse.md#field-mapping): scores in
// the v1/v2 and v3 forms, score configs, sessions, pages, the ingestion's 207 and the error
// bodies. The one place Assay's rows become Langfuse's JSON.
import { z } from 'zod';
import { AssayError, ValidationError, type ValidationIssue } from '../shared/errors.js';
import type { LangfuseDataType, LangfuseSource, V3FieldGroup } from './inputs.js';

/** Langfuse's environment when none is kept: Assay's scores have none (docs/langfuse.md#field-mapping). */
export const DEFAULT_ENVIRONMENT = 'default';

/** What a stored score gives the answers (the Score model's fields). */
export interface ScoreRow {
  id: string;
  projectId: string;
  traceId: string | null;
  spanId: string | null;
  sessionId: string | null;
  name: string;
  dataType: string;
  value: number | null;
  stringValue: string | null;
  comment: string | null;
  metadata: unknown;
  source: string;
  authorType: string;
  authorId: string | null;
  configId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a stored score config gives the answers (the ScoreConfig model's fields). */
export interface ScoreConfigRow {
  id: string;
  projectId: string;
  name: string;
  dataType: string;
  minValue: number | null;
  maxValue: number | null;
  categories: unknown;
  description: string | null;
  isArchived: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** Assay's sources as Langfuse names them: an evaluator's and an online evaluation's are both EVAL. */
const langfuseSourceOf: Record<string, LangfuseSource> = { api: 'API', annotation: 'ANNOTATION', evaluation: 'EVAL', online: 'EVAL' };

export function langfuseSource(source: string): LangfuseSource {
  return langfuseSourceOf[source] ?? 'API';
}

/** The user who wrote a score, as Langfuse's `authorUserId`: null for an API key's. */
function authorUserId(score: ScoreRow): string | null {
  return score.authorType === 'user' ? score.authorId : null;
}

const dataType = z.enum(['NUMERIC', 'BOOLEAN', 'CATEGORICAL', 'TEXT']);
const source = z.enum(['API', 'ANNOTATION', 'EVAL']);

export const langfuseScoreResponse = z
  .object({
    id: z.string(),
    traceId: z.string().nullable(),
    observationId: z.string().nullable(),
    sessionId: z.string().nullable(),
    datasetRunId: z.null(),
    name: z.string(),
    source,
    timestamp: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    authorUserId: z.string().nullable(),
    comment: z.string().nullable(),
    metadata: z.unknown(),
    configId: z.string().nullable(),
    queueId: z.null(),
    environment: z.string(),
    dataType,
    value: z.number().optional().describe('Absent for TEXT'),
    stringValue: z.string().optional().describe('BOOLEAN: "True" or "False"; CATEGORICAL: the label; TEXT: the text'),
    trace: z
      .object({ userId: z.string().optional(), tags: z.array(z.string()), environment: z.string(), sessionId: z.string().optional() })
      .optional()
      .describe('Lists: the trace the score names, once it is stored (fields=trace, the default)'),
  })
  .meta({ id: 'LangfuseScore', description: "A score in Langfuse's v1/v2 shape (GetScoresResponseData)" });
export type LangfuseScoreJson = z.output<typeof langfuseScoreResponse>;

/** What a score's list shows of its trace: the roll-up's user, environment and session. */
export interface TraceOwner {
  userId: string | null;
  sessionId: string | null;
  environment: string | null;
}

/** Langfuse's `trace` of a listed score: Assay's traces have no tags. */
export function langfuseTraceData(trace: TraceOwner): LangfuseScoreJson['trace'] {
  return {
    ...(trace.userId !== null ? { userId: trace.userId } : {}),
    tags: [],
    environment: trace.environment ?? DEFAULT_ENVIRONMENT,
    ...(trace.sessionId !== null ? { sessionId: trace.sessionId } : {}),
  };
}

/** A score as Langfuse's `GET /api/public/v2/scores[/{id}]` answers it. */
export function langfuseScoreJson(score: ScoreRow): LangfuseScoreJson {
  const json: LangfuseScoreJson = {
    id: score.id,
    traceId: score.traceId,
    observationId: score.spanId,
    sessionId: score.sessionId,
    datasetRunId: null,
    name: score.name,
    source: langfuseSource(score.source),
    timestamp: score.createdAt.toISOString(),
    createdAt: score.createdAt.toISOString(),
    updatedAt: score.updatedAt.toISOString(),
    authorUserId: authorUserId(score),
    comment: score.comment,
    metadata: score.metadata ?? null,
    configId: score.configId,
    queueId: null,
    environment: DEFAULT_ENVIRONMENT,
    dataType: score.dataType as LangfuseDataType,
  };
  // Langfuse: a CATEGORICAL score without a config is worth 0; a TEXT score has no number.
  if (score.dataType !== 'TEXT') json.value = score.value ?? 0;
  if (score.dataType !== 'NUMERIC' && score.stringValue !== null) json.stringValue = score.stringValue;
  return json;
}

const subject = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('trace'), id: z.string() }),
  z.object({ kind: z.literal('observation'), id: z.string(), traceId: z.string().optional() }),
  z.object({ kind: z.literal('session'), id: z.string() }),
]);

export const langfuseScoreV3Response = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    source,
    timestamp: z.string(),
    environment: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    dataType,
    value: z.union([z.number(), z.boolean(), z.string()]).describe('NUMERIC: a number; BOOLEAN: a boolean; CATEGORICAL: the label; TEXT: the text'),
    comment: z.string().nullable().optional().describe('With fields=details'),
    configId: z.string().nullable().optional().describe('With fields=details'),
    metadata: z.unknown().optional().describe('With fields=details'),
    authorUserId: z.string().nullable().optional().describe('With fields=annotation'),
    queueId: z.null().optional().describe('With fields=annotation'),
    subject: subject.optional().describe('With fields=subject'),
  })
  .meta({ id: 'LangfuseScoreV3', description: "A score in Langfuse's v3 shape (ScoreV3)" });
export type LangfuseScoreV3Json = z.output<typeof langfuseScoreV3Response>;

function v3Value(score: ScoreRow): number | boolean | string {
  if (score.dataType === 'NUMERIC') return score.value ?? 0;
  if (score.dataType === 'BOOLEAN') return score.value === 1;
  return score.stringValue ?? '';
}

function v3Subject(score: ScoreRow): z.output<typeof subject> {
  if (score.spanId) return { kind: 'observation', id: score.spanId, ...(score.traceId ? { traceId: score.traceId } : {}) };
  if (score.traceId) return { kind: 'trace', id: score.traceId };
  return { kind: 'session', id: score.sessionId ?? '' };
}

/** A score as `GET /api/public/v3/scores` answers it: the core fields and the groups asked for. */
export function langfuseScoreV3Json(score: ScoreRow, groups: readonly V3FieldGroup[]): LangfuseScoreV3Json {
  const json: LangfuseScoreV3Json = {
    id: score.id,
    projectId: score.projectId,
    name: score.name,
    source: langfuseSource(score.source),
    timestamp: score.createdAt.toISOString(),
    environment: DEFAULT_ENVIRONMENT,
    createdAt: score.createdAt.toISOString(),
    updatedAt: score.updatedAt.toISOString(),
    dataType: score.dataType as LangfuseDataType,
    value: v3Value(score),
  };
  if (groups.includes('details')) Object.assign(json, { comment: score.comment, configId: score.configId, metadata: score.metadata ?? {} });
  if (groups.includes('annotation')) Object.assign(json, { authorUserId: authorUserId(score), queueId: null });
  if (groups.includes('subject')) json.subject = v3Subject(score);
  return json;
}

const category = z.object({ label: z.string(), value: z.number() });
/** Langfuse keeps a BOOLEAN config's categories; Assay's are fixed, so they are given here. */
const BOOLEAN_CATEGORIES = [
  { label: 'True', value: 1 },
  { label: 'False', value: 0 },
];

export const langfuseScoreConfigResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    projectId: z.string(),
    dataType,
    isArchived: z.boolean(),
    minValue: z.number().nullable(),
    maxValue: z.number().nullable(),
    categories: z.array(category).nullable(),
    description: z.string().nullable(),
  })
  .meta({ id: 'LangfuseScoreConfig', description: "A score config in Langfuse's shape (ScoreConfig)" });
export type LangfuseScoreConfigJson = z.output<typeof langfuseScoreConfigResponse>;

export function langfuseScoreConfigJson(config: ScoreConfigRow): LangfuseScoreConfigJson {
  const categories =
    config.dataType === 'BOOLEAN' ? BOOLEAN_CATEGORIES : Array.isArray(config.categories) ? (config.categories as { label: string; value: number }[]) : null;
  return {
    id: config.id,
    name: config.name,
    createdAt: config.createdAt.toISOString(),
    updatedAt: config.updatedAt.toISOString(),
    projectId: config.projectId,
    dataType: config.dataType as LangfuseDataType,
    isArchived: config.isArchived,
    minValue: config.minValue,
    maxValue: config.maxValue,
    categories,
    description: config.description,
  };
}

export const langfuseSessionResponse = z
  .object({ id: z.string(), createdAt: z.string(), projectId: z.string(), environment: z.string() })
  .meta({ id: 'LangfuseSession', description: "A session in Langfuse's shape: createdAt is when its first trace began" });
export type LangfuseSessionJson = z.output<typeof langfuseSessionResponse>;

export const langfuseTraceResponse = z
  .object({
    id: z.string(),
    timestamp: z.string(),
    name: z.string().nullable(),
    input: z.unknown(),
    output: z.unknown(),
    sessionId: z.string().nullable(),
    release: z.null(),
    version: z.null(),
    userId: z.string().nullable(),
    metadata: z.unknown(),
    tags: z.array(z.string()),
    public: z.boolean(),
    environment: z.string(),
  })
  .meta({ id: 'LangfuseTrace', description: "A trace of a session in Langfuse's shape (Trace)" });
export type LangfuseTraceJson = z.output<typeof langfuseTraceResponse>;

export const langfuseSessionWithTracesResponse = langfuseSessionResponse
  .extend({ traces: z.array(langfuseTraceResponse) })
  .meta({ id: 'LangfuseSessionWithTraces', description: "A session and its traces in Langfuse's shape (SessionWithTraces)" });

/** Langfuse's page of a list: `{data, meta: {page, limit, totalItems, totalPages}}`. */
export function langfusePage<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      data: z.array(item),
      meta: z.object({ page: z.int(), limit: z.int(), totalItems: z.int(), totalPages: z.int() }),
    })
    .meta({ id });
}

export function pageOf<T>(data: T[], page: number, limit: number, totalItems: number) {
  return { data, meta: { page, limit, totalItems, totalPages: Math.ceil(totalItems / limit) } };
}

export const langfuseScoresV3Response = z
  .object({
    data: z.array(langfuseScoreV3Response),
    meta: z.object({ limit: z.int(), cursor: z.string().optional().describe('Absent on the last page') }),
  })
  .meta({ id: 'LangfuseScoresV3' });

export const idResponse = z.object({ id: z.string() }).meta({ id: 'LangfuseCreated' });
export const messageResponse = z.object({ message: z.string() }).meta({ id: 'LangfuseMessage' });

/** The ingestion's multi-status answer (`IngestionResponse`). */
export const ingestionResponse = z
  .object({
    successes: z.array(z.object({ id: z.string(), status: z.int() })),
    errors: z.array(z.object({ id: z.string(), status: z.int(), message: z.string().optional(), error: z.unknown().optional() })),
  })
  .meta({ id: 'LangfuseIngestionResponse', description: 'Every event of the batch, each either among successes (201) or errors (with why)' });
export type IngestionAnswer = z.output<typeof ingestionResponse>;

/** Langfuse's error body: what went wrong, and the kind of error (or the faults of a request). */
export const langfuseError = z
  .object({ message: z.string(), error: z.unknown().optional().describe('The kind of error, or the list of faults of an invalid request') })
  .meta({ id: 'LangfuseError' });

/**
 * A request Langfuse's schema refuses: 400 with `{message: "Invalid request data", error: [faults]}`,
 * each fault naming its field by `path`. A ValidationError, so GraphQL and the rest read it alike.
 */
export class LangfuseInvalidRequest extends ValidationError {
  constructor(readonly faults: { path: (string | number)[]; message: string; code: string }[]) {
    super(faults.map((fault) => ({ loc: fault.path, msg: fault.message, type: fault.code })));
  }
}

/** Langfuse's names of its error kinds, by status. */
const errorNames: Record<number, string> = {
  400: 'InvalidRequestError',
  401: 'UnauthorizedError',
  403: 'ForbiddenError',
  404: 'LangfuseNotFoundError',
  405: 'MethodNotAllowedError',
  409: 'LangfuseConflictError',
  413: 'PayloadTooLargeError',
  429: 'TooManyRequestsError',
  503: 'ServiceUnavailableError',
};

/** Langfuse's name of an error's kind, by its status. */
export function langfuseErrorName(status: number): string {
  return errorNames[status] ?? 'Error';
}

/** An Assay fault as `field: message`, the way Langfuse's messages name the field. */
function issueText(issue: ValidationIssue): string {
  const path = issue.loc.filter((part, index) => !(index === 0 && ['body', 'query', 'path'].includes(String(part))));
  return path.length ? `${path.join('.')}: ${issue.msg}` : issue.msg;
}

/** The text of a refusal of one event or request, naming the field. */
export function refusalText(error: AssayError): string {
  return error instanceof ValidationError ? error.issues.map(issueText).join('; ') : error.message;
}

/**
 * An error as Langfuse answers it: its status (a validation fault is 400, never Assay's 422) and
 * body. An invalid request lists its faults; any other error gives its message and kind; a 401
 * only its message, as Langfuse's authentication does.
 */
export function langfuseErrorAnswer(error: AssayError): { status: number; body: z.output<typeof langfuseError> } {
  if (error instanceof LangfuseInvalidRequest) return { status: 400, body: { message: 'Invalid request data', error: error.faults } };
  const status = error instanceof ValidationError ? 400 : error.status;
  if (status === 401) return { status, body: { message: error.message } };
  return { status, body: { message: refusalText(error), error: langfuseErrorName(status) } };
}
