// What the score routes answer, described for the OpenAPI document (docs/api.md), and the shaping
// of rows into it; GraphQL's Score and ScoreConfig read the same JSON (docs/scores.md).
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import {
  configDataTypes,
  scoreDataTypes,
  scoreSources,
  scoreTargets,
  type ConfigDataType,
  type ScoreDataType,
  type ScoreSource,
  type ScoreTarget,
} from './inputs.js';
import { type ScoreRow } from './operations.js';
import { configCategories, type ScoreCategory, type ScoreConfigRow } from './score-configs.js';

const authorResponse = z
  .object({
    type: z.enum(['api_key', 'user', 'system']),
    id: z.string().nullable().describe("The key's or user's id; null for the service itself (evaluation runs)"),
    label: z.string().nullable().describe("The key's name and prefix, or the user's email, when it wrote"),
  })
  .meta({ id: 'ScoreAuthor' });

export const scoreResponse = z
  .object({
    id: z.string(),
    target: z.enum(scoreTargets),
    trace_id: z.string().nullable(),
    span_id: z.string().nullable(),
    session_id: z.string().nullable(),
    scenario_id: z.string().nullable(),
    name: z.string(),
    data_type: z.enum(scoreDataTypes),
    value: z.number().nullable().describe("NUMERIC: the number; BOOLEAN: 1 or 0; CATEGORICAL: the category's value; TEXT: null"),
    string_value: z.string().nullable().describe('BOOLEAN: "True"/"False"; CATEGORICAL: the label; TEXT: the text; NUMERIC: null'),
    comment: z.string().nullable(),
    metadata: z.unknown().describe('Any JSON; null when none'),
    source: z.enum(scoreSources),
    author: authorResponse.describe('Who wrote it last'),
    config_id: z.string().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'Score' });

export const scoreListResponse = z.object({
  scores: z.array(scoreResponse),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last'),
});

const categoryResponse = z.object({ label: z.string(), value: z.number() }).meta({ id: 'ScoreCategory' });

export const scoreConfigResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    data_type: z.enum(configDataTypes),
    min_value: z.number().nullable(),
    max_value: z.number().nullable(),
    categories: z.array(categoryResponse).nullable().describe('CATEGORICAL: its categories; BOOLEAN: False (0) and True (1); NUMERIC: null'),
    description: z.string().nullable(),
    is_archived: z.boolean(),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .meta({ id: 'ScoreConfig' });

/** The JSON of a score, REST and GraphQL alike. */
export interface ScoreJson {
  id: string;
  target: ScoreTarget;
  trace_id: string | null;
  span_id: string | null;
  session_id: string | null;
  scenario_id: string | null;
  name: string;
  data_type: ScoreDataType;
  value: number | null;
  string_value: string | null;
  comment: string | null;
  metadata: unknown;
  source: ScoreSource;
  author: { type: 'api_key' | 'user' | 'system'; id: string | null; label: string | null };
  config_id: string | null;
  created_at: string;
  updated_at: string;
}

export function scoreJson(row: ScoreRow): ScoreJson {
  return {
    id: row.id,
    target: row.target as ScoreTarget,
    trace_id: row.traceId,
    span_id: row.spanId,
    session_id: row.sessionId,
    scenario_id: row.scenarioId,
    name: row.name,
    data_type: row.dataType as ScoreDataType,
    value: row.value,
    string_value: row.stringValue,
    comment: row.comment,
    metadata: row.metadata ?? null,
    source: row.source as ScoreSource,
    author: { type: row.authorType as ScoreJson['author']['type'], id: row.authorId, label: row.authorLabel },
    config_id: row.configId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The JSON of a score config, REST and GraphQL alike. */
export interface ScoreConfigJson {
  id: string;
  name: string;
  data_type: ConfigDataType;
  min_value: number | null;
  max_value: number | null;
  categories: ScoreCategory[] | null;
  description: string | null;
  is_archived: boolean;
  created_at: string;
  updated_at: string;
}

export function scoreConfigJson(row: ScoreConfigRow): ScoreConfigJson {
  return {
    id: row.id,
    name: row.name,
    data_type: row.dataType as ConfigDataType,
    min_value: row.minValue,
    max_value: row.maxValue,
    categories: configCategories(row),
    description: row.description,
    is_archived: row.isArchived,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
