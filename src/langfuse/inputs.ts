// What Langfuse's public API takes, in its field names and enum values (docs/langfuse.md), read
// as Langfuse reads it: plain zod, no lax numbers, and a fault answered in Langfuse's 400 body
// (responses.ts) rather than Assay's 422.
import { z } from 'zod';
import { chatRoles, environmentName } from '../apps/inputs.js';
import { parseIsoDateTime } from '../shared/time.js';

/** Langfuse's score data types; CORRECTION is Langfuse's alone (docs/langfuse.md#what-is-not-served). */
export const langfuseDataTypes = ['NUMERIC', 'BOOLEAN', 'CATEGORICAL', 'TEXT'] as const;
export type LangfuseDataType = (typeof langfuseDataTypes)[number];

export const langfuseSources = ['API', 'ANNOTATION', 'EVAL'] as const;
export type LangfuseSource = (typeof langfuseSources)[number];

/** A Langfuse TEXT score holds 1 to 500 characters. */
const MAX_TEXT_SCORE = 500;

/** An ISO-8601 date-time as a Date (Langfuse's `fromTimestamp`, `toTimestamp`, a dataset's `version`). */
export const timestamp = () =>
  z.string().transform((value, ctx) => {
    const parsed = parseIsoDateTime(value);
    if ('error' in parsed) {
      ctx.addIssue({ code: 'custom', message: 'Invalid datetime: expected ISO 8601 such as 2024-05-01T12:00:00Z' });
      return z.NEVER;
    }
    return new Date(Number(parsed.nanos / 1_000_000n));
  });

/** A query's comma-separated list (`scoreIds=a,b`), or a repeated parameter (`environment=a&environment=b`). */
const list = () =>
  z.union([z.string(), z.array(z.string())]).transform((value) =>
    [value]
      .flat()
      .flatMap((part) => part.split(','))
      .map((part) => part.trim())
      .filter(Boolean),
  );

const page = () => z.coerce.number().int().min(1).default(1);
/** Langfuse answers 400 for a limit over 100 on its score lists. */
const limit = (max: number) => z.coerce.number().int().min(1).max(max).default(50);

const optionalText = () => z.string().nullish();

/**
 * A score as Langfuse's `POST /api/public/scores` and its ingestion's `score-create` take it
 * (`CreateScoreRequest`, `ScoreBody`): `value` is a number for NUMERIC and BOOLEAN (1 or 0), a
 * string for CATEGORICAL and TEXT. Without `dataType` the config's type is used, else the value's
 * (a number NUMERIC, a string CATEGORICAL), as Langfuse infers it.
 */
export const langfuseScoreBody = z
  .object({
    id: z.string().min(1).nullish(),
    name: z.string().min(1),
    traceId: optionalText(),
    observationId: optionalText(),
    sessionId: optionalText(),
    datasetRunId: optionalText(),
    value: z.union([z.number(), z.string()]),
    dataType: z.enum(langfuseDataTypes).nullish(),
    comment: optionalText(),
    metadata: z.unknown().optional(),
    configId: optionalText(),
    source: z.enum(langfuseSources).nullish(),
    environment: optionalText(),
    queueId: optionalText(),
  })
  .superRefine((body, ctx) => {
    const targets = [body.traceId, body.sessionId, body.datasetRunId].filter(Boolean).length;
    if (targets !== 1 || (body.observationId && !body.traceId)) {
      ctx.addIssue({
        code: 'custom',
        path: ['traceId'],
        message: 'Provide exactly one of the following: traceId (with optional observationId), sessionId or datasetRunId. ObservationId requires traceId.',
      });
    }
    const expectsNumber = body.dataType === 'NUMERIC' || body.dataType === 'BOOLEAN';
    const expectsText = body.dataType === 'CATEGORICAL' || body.dataType === 'TEXT';
    if ((expectsNumber && typeof body.value !== 'number') || (expectsText && typeof body.value !== 'string')) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: `Value must be a ${expectsNumber ? 'number' : 'string'} for data type ${body.dataType}`,
      });
    }
    if (body.dataType === 'BOOLEAN' && typeof body.value === 'number' && body.value !== 0 && body.value !== 1) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'Value must be a number equal to either 0 or 1 for data type BOOLEAN' });
    }
    if (body.dataType === 'TEXT' && typeof body.value === 'string' && (body.value.length < 1 || body.value.length > MAX_TEXT_SCORE)) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `Text score values must be between 1 and ${MAX_TEXT_SCORE} characters` });
    }
  });
export type LangfuseScoreBody = z.output<typeof langfuseScoreBody>;

/** The body of `POST /api/public/ingestion`; each event is read on its own (ingestion.ts). */
export const ingestionBody = z.object({
  batch: z.array(z.unknown()),
  metadata: z.unknown().optional(),
});

/** Every ingestion event: its id (what the 207 answer names), type and client timestamp. */
export const ingestionEvent = z.object({
  id: z.string().min(1),
  type: z.string(),
  timestamp: z.string(),
  body: z.unknown(),
  metadata: z.unknown().optional(),
});

/** `GET /api/public/v2/scores` (and its v1 alias): page and limit, and Langfuse's filters Assay keeps. */
export const scoresV2Query = z.object({
  page: page(),
  limit: limit(100),
  name: z.string().optional(),
  fromTimestamp: timestamp().optional(),
  toTimestamp: timestamp().optional(),
  source: z.enum(langfuseSources).optional(),
  operator: z.enum(['<', '>', '<=', '>=', '!=', '=', '<>']).optional(),
  value: z.coerce.number().optional(),
  scoreIds: list().optional(),
  configId: z.string().optional(),
  sessionId: z.string().optional(),
  traceId: z.string().optional(),
  observationId: list().optional(),
  dataType: z.enum(langfuseDataTypes).optional(),
  datasetRunId: z.string().optional(),
  userId: z.string().optional(),
  environment: list().optional(),
  queueId: z.string().optional(),
  traceTags: list().optional(),
  /** Field groups: `score` (always there) and `trace` (the trace's user, tags, environment, session); both by default. */
  fields: list()
    .pipe(z.array(z.enum(['score', 'trace'])))
    .optional(),
  filter: z.string().optional(),
});
export type ScoresV2Query = z.output<typeof scoresV2Query>;

/** The field groups `GET /api/public/v3/scores?fields=` adds to the core fields. */
export const v3FieldGroups = ['details', 'subject', 'annotation'] as const;
export type V3FieldGroup = (typeof v3FieldGroups)[number];

/** `GET /api/public/v3/scores`: a cursor, comma-separated filters (OR within one, AND across). */
export const scoresV3Query = z
  .object({
    limit: limit(100),
    cursor: z.string().optional(),
    fields: list()
      .pipe(z.array(z.enum(v3FieldGroups)))
      .optional(),
    id: list().optional(),
    name: list().optional(),
    source: list()
      .transform((values) => values.map((value) => value.toUpperCase()))
      .pipe(z.array(z.enum(langfuseSources)))
      .optional(),
    dataType: list()
      .transform((values) => values.map((value) => value.toUpperCase()))
      .pipe(z.array(z.enum(langfuseDataTypes)))
      .optional(),
    configId: list().optional(),
    authorUserId: list().optional(),
    value: list().optional(),
    valueMin: z.coerce.number().optional(),
    valueMax: z.coerce.number().optional(),
    traceId: list().optional(),
    sessionId: list().optional(),
    observationId: list().optional(),
    experimentId: list().optional(),
    environment: list().optional(),
    queueId: list().optional(),
    fromTimestamp: timestamp().optional(),
    toTimestamp: timestamp().optional(),
  })
  .superRefine((query, ctx) => {
    const single = query.dataType?.length === 1 ? query.dataType[0] : undefined;
    if ((query.valueMin !== undefined || query.valueMax !== undefined) && single !== 'NUMERIC') {
      ctx.addIssue({ code: 'custom', path: ['dataType'], message: 'valueMin and valueMax require dataType=NUMERIC as a single value' });
    }
    if (query.value && (!single || !['NUMERIC', 'BOOLEAN', 'CATEGORICAL'].includes(single))) {
      ctx.addIssue({ code: 'custom', path: ['dataType'], message: 'value requires a single dataType of NUMERIC, BOOLEAN or CATEGORICAL' });
    }
    if (single === 'BOOLEAN' && query.value?.some((value) => value !== 'true' && value !== 'false')) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'A BOOLEAN value must be "true" or "false"' });
    }
    if (single === 'NUMERIC' && query.value?.some((value) => !Number.isFinite(Number(value)))) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'A NUMERIC value must be a finite number' });
    }
    if (query.observationId && !query.traceId) {
      ctx.addIssue({ code: 'custom', path: ['observationId'], message: 'observationId requires traceId, because observation IDs are scoped to a trace' });
    }
    const subjects = [query.traceId, query.sessionId, query.experimentId].filter(Boolean).length;
    if (subjects > 1) {
      ctx.addIssue({ code: 'custom', path: ['traceId'], message: 'traceId, sessionId and experimentId are mutually exclusive' });
    }
  });
export type ScoresV3Query = z.output<typeof scoresV3Query>;

const category = z.object({ label: z.string().min(1), value: z.number() });

/** Langfuse's config names: up to 35 letters, digits, underscores, spaces, periods, parentheses, hyphens. */
const configName = () =>
  z
    .string()
    .min(1)
    .max(35)
    .regex(/^[A-Za-z0-9_ .()-]+$/, 'Only letters, numbers, underscores, spaces, periods, parentheses, and hyphens are allowed');

/** `POST /api/public/score-configs` (`CreateScoreConfigRequest`). */
export const scoreConfigBody = z.object({
  name: configName(),
  dataType: z.enum(langfuseDataTypes),
  categories: z.array(category).nullish(),
  minValue: z.number().nullish(),
  maxValue: z.number().nullish(),
  description: z.string().nullish(),
});
export type ScoreConfigBody = z.output<typeof scoreConfigBody>;

/** `PATCH /api/public/score-configs/{configId}` (`UpdateScoreConfigRequest`): a field left out is kept. */
export const scoreConfigPatch = z.object({
  isArchived: z.boolean().optional(),
  name: configName().optional(),
  categories: z.array(category).nullish(),
  minValue: z.number().nullish(),
  maxValue: z.number().nullish(),
  description: z.string().nullish(),
});
export type ScoreConfigPatch = z.output<typeof scoreConfigPatch>;

/** Langfuse's plain pagination (`GetScoreConfigsRequest`). */
export const pageQuery = z.object({ page: page(), limit: limit(1000) });

/** `GET /api/public/sessions` (`GetSessionsRequest`). */
export const sessionsQuery = z.object({
  page: page(),
  limit: limit(1000),
  fromTimestamp: timestamp().optional(),
  toTimestamp: timestamp().optional(),
  environment: list().optional(),
});
export type SessionsQuery = z.output<typeof sessionsQuery>;

/** Langfuse's `latest`: the newest version, kept by the service, never set (docs/deployments.md#langfuse). */
export const LATEST = 'latest';

/** A label is an environment's name (docs/deployments.md#langfuse). */
const label = () => environmentName().refine((value) => value !== LATEST, { message: 'The latest label is reserved: it always names the newest version' });

const chatMessage = z.union([
  z.object({ role: z.enum(chatRoles), content: z.string(), type: z.literal('chatmessage').optional() }),
  z
    .object({ type: z.literal('placeholder') })
    .loose()
    .transform((_, ctx) => {
      ctx.addIssue({ code: 'custom', message: 'Placeholder messages are not served: a prompt variant runs its messages as written' });
      return z.NEVER;
    }),
]);

/** `POST /api/public/v2/prompts` (`CreatePromptRequest`): a text prompt (`type` text or absent) or a chat prompt. */
export const createPromptBody = z
  .object({
    name: z.string().trim().min(1).max(255),
    type: z.enum(['text', 'chat']).default('text'),
    prompt: z.union([z.string(), z.array(chatMessage).min(1)]),
    config: z.record(z.string(), z.unknown()).nullish(),
    labels: z.array(label()).default([]),
    tags: z.array(z.string().min(1)).nullish(),
    commitMessage: z.string().max(2000).nullish(),
  })
  .superRefine((body, ctx) => {
    if (body.type === 'text' && typeof body.prompt !== 'string') ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'A text prompt is a string' });
    if (body.type === 'chat' && typeof body.prompt === 'string')
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'A chat prompt is a list of messages' });
    if (body.config?.model !== undefined && typeof body.config.model !== 'string')
      ctx.addIssue({ code: 'custom', path: ['config', 'model'], message: 'A model name' });
  });
export type CreatePromptBody = z.output<typeof createPromptBody>;

/** `GET /api/public/v2/prompts/{name}` (`GetPromptRequest`): one of `version`, `label`; `production` by default. */
export const getPromptQuery = z
  .object({ version: z.coerce.number().int().min(1).optional(), label: z.string().min(1).optional(), resolve: z.string().optional() })
  .refine((query) => query.version === undefined || query.label === undefined, { message: 'Give either version or label, not both', path: ['label'] });

/** `PATCH /api/public/v2/prompts/{name}/versions/{version}`. */
export const promptVersionParams = z.object({ name: z.string().min(1), version: z.coerce.number().int().min(1) });
export const updatePromptLabelsBody = z.object({ newLabels: z.array(label()) });

/** `GET /api/public/v2/prompts` (`ListPromptsMetaRequest`). */
export const listPromptsQuery = z.object({
  name: z.string().optional(),
  label: z.string().optional(),
  tag: z.string().optional(),
  page: page(),
  limit: limit(1000),
  fromUpdatedAt: timestamp().optional(),
  toUpdatedAt: timestamp().optional(),
});
export type ListPromptsQuery = z.output<typeof listPromptsQuery>;
