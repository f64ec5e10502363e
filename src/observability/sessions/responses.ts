// What the session routes answer (GET /sessions, GET /sessions/{session_id}), described for the
// OpenAPI document (docs/api.md; a test checks real answers against these), and the shaping of
// session rows into them.
import { z } from 'zod';
import { scoreJson, scoreResponse } from '../../scores/responses.js';
import { timestamp } from '../../shared/http/openapi.js';
import { traceJson, traceSummaryResponse } from '../search/responses.js';
import { usageResponse } from '../traces/responses.js';
import type { SessionRow, SessionTurn } from './operations.js';

const nextCursor = z.string().nullable().describe('Pass as `cursor` for the next page; null on the last');

export const sessionResponse = z
  .object({
    session_id: z.string(),
    first_seen: timestamp().describe('When its first trace started'),
    last_seen: timestamp().describe('When its latest trace started'),
    trace_count: z.int(),
    error_count: z.int().describe('Failed spans over all its traces'),
    failed_trace_count: z.int().describe('Traces with a failed span'),
    usage: usageResponse,
    cost: z.number().nullable().describe('USD over all its traces; null when none has a cost'),
    user_id: z.string().nullable().describe("Its first trace's end user"),
    environment: z.string().nullable().describe("Its first trace's environment"),
    first_trace_id: z.string(),
    last_trace_id: z.string(),
    first_input: z.unknown().describe("The first trace's input (its root span's inputs)"),
    last_output: z.unknown().describe("The latest trace's output (its root span's outputs)"),
    scores: z.array(scoreResponse).describe('The scores of the session itself, oldest first'),
  })
  .meta({ id: 'Session' });

export const sessionListResponse = z.object({ sessions: z.array(sessionResponse), next_cursor: nextCursor });

const turnResponse = traceSummaryResponse
  .extend({
    input: z.unknown().describe("The root span's inputs"),
    output: z.unknown().describe("The root span's outputs"),
  })
  .meta({ id: 'SessionTurn' });

export const sessionDetailResponse = sessionResponse
  .extend({
    turns: z.array(turnResponse).describe('Its traces in start order, a page at a time'),
    next_cursor: nextCursor.describe('Pass as `cursor` for the next page of turns; null on the last'),
  })
  .meta({ id: 'SessionDetail' });

export function sessionJson(session: SessionRow) {
  return {
    session_id: session.sessionId,
    first_seen: session.firstSeen.toISOString(),
    last_seen: session.lastSeen.toISOString(),
    trace_count: session.traceCount,
    error_count: session.errorCount,
    failed_trace_count: session.failedTraceCount,
    usage: { prompt_tokens: session.promptTokens, completion_tokens: session.completionTokens, total_tokens: session.totalTokens },
    cost: session.cost,
    user_id: session.userId,
    environment: session.environment,
    first_trace_id: session.firstTraceId,
    last_trace_id: session.lastTraceId,
    first_input: session.firstInput,
    last_output: session.lastOutput,
    scores: session.scores.map(scoreJson),
  };
}

export function turnJson(turn: SessionTurn) {
  return { ...traceJson(turn.trace), input: turn.input, output: turn.output };
}
