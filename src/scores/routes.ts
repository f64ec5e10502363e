// REST routes of scores and score configs (docs/scores.md#rest). `POST /scores` needs the
// `feedback` scope, which `write` includes, so a browser's feedback key may write scores and
// nothing else.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { restRoutes } from '../shared/http/route.js';
import { scoreConfigInput, scoreConfigListQuery, scoreConfigPatch, scoreListQuery, scoresBody } from './inputs.js';
import * as scores from './operations.js';
import * as scoreConfigs from './score-configs.js';
import * as scoreReads from './score-reads.js';
import { scoreConfigJson, scoreConfigResponse, scoreJson, scoreListResponse, scoreResponse } from './responses.js';

const tag = 'scores';

export function scoreRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/scores',
    {
      tag,
      summary: 'Write a score or a list of scores (same id again: updated)',
      description:
        'One score answers one score, a list (up to 1000) answers the list, in order. Every input is checked first and all faults come in one 422; ' +
        'an id already used for another target is a 409; a feedback key writing another author’s id a 403 (docs/scores.md).',
      scope: 'feedback',
      body: scoresBody,
      response: z.union([scoreResponse, z.array(scoreResponse)]),
      errors: [403, 409],
      examples: {
        thumbs: { id: 'feedback-4f1c', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', name: 'user_feedback', value: true, comment: 'spot on' },
        list: [
          { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', name: 'accuracy', value: 0.8 },
          { session_id: 'chat-42', name: 'resolved', data_type: 'BOOLEAN', value: 1 },
        ],
      },
    },
    async (req, { body }) => {
      const single = !Array.isArray(body);
      const rows = await scores.upsertScores(req.ctx, single ? [body] : body, { at: scores.bodyLocation(single) });
      return single ? scoreJson(rows[0]) : rows.map(scoreJson);
    },
  );
  rest.get('/scores', { tag, summary: 'List scores, newest first', query: scoreListQuery, response: scoreListResponse }, async (req, { query }) => {
    const { limit, cursor, ...filter } = query;
    const page = await scoreReads.listScores(req.ctx, filter, { first: limit, after: cursor });
    return { scores: page.scores.map(scoreJson), next_cursor: page.nextCursor };
  });
  rest.get('/scores/:score_id', { tag, summary: 'One score', response: scoreResponse, errors: [404] }, async (req, { params }) =>
    scoreJson(await scoreReads.getScore(req.ctx, params.score_id)),
  );
  rest.delete('/scores/:score_id', { tag, summary: 'Delete a score', noContent: true, errors: [404] }, (req, { params }) =>
    scores.deleteScore(req.ctx, params.score_id),
  );
  rest.post(
    '/score-configs',
    {
      tag,
      summary: 'Create a score config',
      body: scoreConfigInput,
      response: scoreConfigResponse,
      examples: {
        range: { name: 'helpfulness', data_type: 'NUMERIC', min_value: 0, max_value: 5, description: '0 useless, 5 perfect' },
        categories: {
          name: 'tone',
          data_type: 'CATEGORICAL',
          categories: [
            { label: 'rude', value: 0 },
            { label: 'kind', value: 1 },
          ],
        },
      },
    },
    async (req, { body }) => scoreConfigJson(await scoreConfigs.createScoreConfig(req.ctx, body)),
  );
  rest.get(
    '/score-configs',
    { tag, summary: 'List score configs, archived ones included', query: scoreConfigListQuery, response: z.array(scoreConfigResponse) },
    async (req, { query }) => (await scoreConfigs.listScoreConfigs(req.ctx, query)).map(scoreConfigJson),
  );
  rest.get('/score-configs/:score_config_id', { tag, summary: 'One score config', response: scoreConfigResponse, errors: [404] }, async (req, { params }) =>
    scoreConfigJson(await scoreConfigs.getScoreConfig(req.ctx, params.score_config_id)),
  );
  rest.patch(
    '/score-configs/:score_config_id',
    { tag, summary: 'Change or archive a score config (never deleted)', body: scoreConfigPatch, response: scoreConfigResponse, errors: [404] },
    async (req, { params, body }) => scoreConfigJson(await scoreConfigs.updateScoreConfig(req.ctx, params.score_config_id, body)),
  );
}
