// Inputs of scores and score configs, validated the same way for REST and GraphQL (docs/scores.md).
// The shapes are checked here; what depends on stored rows (a config's range and categories, an
// id written before for another target) is checked by operations.ts, with the same 422 locations.
import { z } from 'zod';
import { pageLimit, queryBoolean } from '../shared/http/params.js';
import { isoDate, number } from '../shared/validation.js';

export const scoreTargets = ['trace', 'span', 'session', 'scenario'] as const;
export type ScoreTarget = (typeof scoreTargets)[number];
export const scoreDataTypes = ['NUMERIC', 'BOOLEAN', 'CATEGORICAL', 'TEXT'] as const;
export type ScoreDataType = (typeof scoreDataTypes)[number];
export const scoreSources = ['api', 'annotation', 'evaluation', 'online'] as const;
export type ScoreSource = (typeof scoreSources)[number];
/** A config types numbers, booleans or categories; a TEXT score takes no config. */
export const configDataTypes = ['NUMERIC', 'BOOLEAN', 'CATEGORICAL'] as const;
export type ConfigDataType = (typeof configDataTypes)[number];

/** Most scores one request writes (`POST /scores` with a list, `upsertScores`). */
export const MAX_SCORES_PER_REQUEST = 1000;
/** Longest text of a TEXT score, a label or a comment. */
export const MAX_TEXT = 10_000;

const id = () => z.string().trim().min(1).max(200);

export const scoreInput = z.object({
  id: id().optional().describe("The client's id: writing the same id again updates the score. A new UUIDv7 when absent."),
  target: z.enum(scoreTargets).optional().describe('What is scored; when absent, the most specific id given says (scenario_id, span_id, trace_id, session_id)'),
  trace_id: id().nullish().describe('The trace (target trace), or the trace of the span (target span); it need not have arrived yet'),
  span_id: id().nullish().describe('The span (target span), with its trace_id'),
  session_id: id().nullish().describe('The session (target session)'),
  scenario_id: id().nullish().describe("An evaluation scenario's id (target scenario)"),
  name: z.string().trim().min(1).max(200).optional().describe('What is scored ("helpfulness"); the config\'s name when config_id is given'),
  data_type: z
    .enum(scoreDataTypes)
    .optional()
    .describe("The config's when config_id is given; else read from value: a boolean, a string (CATEGORICAL) or a number"),
  value: z
    .union([z.number(), z.boolean(), z.string().max(MAX_TEXT)])
    .nullish()
    .describe("NUMERIC: the number; BOOLEAN: true/false or 1/0; CATEGORICAL: the category's value or label; TEXT: the text"),
  string_value: z.string().max(MAX_TEXT).nullish().describe("CATEGORICAL: the category's label; TEXT: the text"),
  comment: z.string().max(MAX_TEXT).nullish(),
  metadata: z.json().nullish().describe('Any JSON'),
  source: z.enum(scoreSources).optional().describe('"api" for a key, "annotation" for a signed-in user when absent; a feedback key writes "api" only'),
  config_id: id().nullish().describe('A score config the score must fit (data type, range, categories)'),
});
export type ScoreInput = z.output<typeof scoreInput>;

/** `POST /scores`: one score or a list of them. */
export const scoresBody = z.union([scoreInput, z.array(scoreInput).min(1).max(MAX_SCORES_PER_REQUEST)]);

export const scoreListQuery = z.object({
  trace_id: id().optional(),
  span_id: id().optional(),
  session_id: id().optional(),
  scenario_id: id().optional(),
  target: z.enum(scoreTargets).optional(),
  name: z.string().min(1).optional(),
  source: z.enum(scoreSources).optional(),
  data_type: z.enum(scoreDataTypes).optional(),
  config_id: id().optional(),
  started_after: isoDate().optional().describe('Scores created at or after this time'),
  started_before: isoDate().optional().describe('Scores created before this time'),
  limit: pageLimit(),
  cursor: z.string().min(1).optional(),
});
export type ScoreListQuery = z.output<typeof scoreListQuery>;

const category = z.object({
  label: z.string().trim().min(1).max(200),
  value: number(),
});

const configFields = {
  name: z.string().trim().min(1).max(200),
  data_type: z.enum(configDataTypes),
  min_value: number().nullish().describe('NUMERIC: the least value allowed'),
  max_value: number().nullish().describe('NUMERIC: the greatest value allowed'),
  categories: z.array(category).max(100).nullish().describe('CATEGORICAL: at least one; labels and values each unique'),
  description: z.string().max(MAX_TEXT).nullish(),
};

export const scoreConfigInput = z.object(configFields);
export type ScoreConfigInput = z.output<typeof scoreConfigInput>;

/** `PATCH /score-configs/{id}`: the fields to change; the data type never changes. */
export const scoreConfigPatch = z.object({
  name: configFields.name.optional(),
  min_value: configFields.min_value,
  max_value: configFields.max_value,
  categories: configFields.categories,
  description: configFields.description,
  is_archived: z.boolean().optional().describe('Archived configs are listed but take no new scores; never deleted'),
});
export type ScoreConfigPatch = z.output<typeof scoreConfigPatch>;

export const scoreConfigListQuery = z.object({
  name: z.string().min(1).optional(),
  data_type: z.enum(configDataTypes).optional(),
  is_archived: queryBoolean().optional().describe('Only archived (true) or only active (false) configs; both when absent'),
});
