// Langfuse's public API for scores, score configs and sessions (docs/langfuse.md), served under
// /api/public like Langfuse, so an app set up for Langfuse changes only its base URL and keys. Its
// own Fastify scope: bodies are read as JSON as in REST, but every error is answered in Langfuse's
// body (`{message, error}`, 400 for a fault) by the handler set here.
import type { FastifyError, FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AssayError } from '../shared/errors.js';
import { acceptJsonBodies } from '../shared/http/body.js';
import * as scores from '../scores/operations.js';
import * as scoreConfigs from '../scores/score-configs.js';
import * as scoreReads from '../scores/score-reads.js';
import * as sessions from '../observability/sessions/operations.js';
import { ingestBatch } from './ingestion.js';
import {
  createPromptBody,
  getPromptQuery,
  ingestionBody,
  langfuseScoreBody,
  listPromptsQuery,
  pageQuery,
  promptVersionParams,
  scoreConfigBody,
  scoreConfigPatch,
  scoresV2Query,
  scoresV3Query,
  sessionsQuery,
  updatePromptLabelsBody,
} from './inputs.js';
import { createPrompt, getPrompt, listPrompts, setPromptLabels } from './prompts.js';
import {
  idResponse,
  ingestionResponse,
  langfuseErrorAnswer,
  langfuseErrorName,
  langfusePage,
  langfusePromptMetaResponse,
  langfusePromptResponse,
  langfuseScoreConfigJson,
  langfuseScoreConfigResponse,
  langfuseScoreJson,
  langfuseScoreResponse,
  langfuseScoresV3Response,
  langfuseSessionResponse,
  langfuseSessionWithTracesResponse,
  messageResponse,
  pageOf,
} from './responses.js';
import { langfuseRoutes } from './route.js';
import { listScoresV2, listScoresV3, writeLangfuseScore } from './scores.js';
import { createConfig, updateConfig } from './configs.js';
import { listLangfuseSessions, langfuseSessionWithTraces } from './sessions.js';
import * as annotationQueues from './annotation-queues.js';
import * as datasets from './datasets.js';
import * as experiments from './experiments.js';

const scoreId = z.object({ scoreId: z.string() });
const configId = z.object({ configId: z.string() });
const sessionId = z.object({ sessionId: z.string() });
const queueId = z.object({ queueId: z.string() });
const queueItemId = z.object({ queueId: z.string(), itemId: z.string() });

function routes(app: FastifyInstance): void {
  const langfuse = langfuseRoutes(app);

  langfuse.post(
    '/public/ingestion',
    {
      summary: "Langfuse's batch ingestion: score-create events are stored, every event answered in a 207",
      description:
        'Each event is answered on its own: `successes` (201) or `errors` (status, message, error). Traces and observations are refused one by one with where to send them instead (OTLP at /api/public/otel); docs/langfuse.md#ingestion.',
      scope: 'ingest',
      body: ingestionBody,
      response: ingestionResponse,
      status: 207,
    },
    async (req, { body }) => ingestBatch(req.ctx, body),
  );

  langfuse.post(
    '/public/scores',
    { summary: 'Create or update a score (Langfuse)', scope: 'feedback', body: langfuseScoreBody, response: idResponse },
    async (req, { body }) => ({ id: (await writeLangfuseScore(req.ctx, body)).id }),
  );
  const scoresV2 = langfusePage(langfuseScoreResponse, 'LangfuseScores');
  for (const url of ['/public/v2/scores', '/public/scores']) {
    langfuse.get(url, { summary: 'List scores, a page at a time (Langfuse v2)', query: scoresV2Query, response: scoresV2 }, async (req, { query }) =>
      listScoresV2(req.ctx, query),
    );
    langfuse.get(
      `${url}/:scoreId`,
      { summary: 'One score (Langfuse)', params: scoreId, response: langfuseScoreResponse, notFound: true },
      async (req, { params }) => langfuseScoreJson(await scoreReads.getScore(req.ctx, params.scoreId)),
    );
  }
  langfuse.get(
    '/public/v3/scores',
    { summary: 'List scores by cursor (Langfuse v3)', query: scoresV3Query, response: langfuseScoresV3Response },
    async (req, { query }) => listScoresV3(req.ctx, query),
  );
  langfuse.delete(
    '/public/scores/:scoreId',
    { summary: 'Delete a score (Langfuse)', params: scoreId, response: messageResponse, notFound: true },
    async (req, { params }) => {
      await scores.deleteScore(req.ctx, params.scoreId);
      return { message: 'Score deleted successfully' };
    },
  );

  langfuse.post(
    '/public/score-configs',
    { summary: 'Create a score config (Langfuse)', body: scoreConfigBody, response: langfuseScoreConfigResponse },
    async (req, { body }) => langfuseScoreConfigJson(await createConfig(req.ctx, body)),
  );
  langfuse.get(
    '/public/score-configs',
    { summary: 'List score configs (Langfuse)', query: pageQuery, response: langfusePage(langfuseScoreConfigResponse, 'LangfuseScoreConfigs') },
    async (req, { query }) => {
      const configs = await scoreConfigs.listScoreConfigs(req.ctx);
      const start = (query.page - 1) * query.limit;
      return pageOf(configs.slice(start, start + query.limit).map(langfuseScoreConfigJson), query.page, query.limit, configs.length);
    },
  );
  langfuse.get(
    '/public/score-configs/:configId',
    { summary: 'One score config (Langfuse)', params: configId, response: langfuseScoreConfigResponse, notFound: true },
    async (req, { params }) => langfuseScoreConfigJson(await scoreConfigs.getScoreConfig(req.ctx, params.configId)),
  );
  langfuse.patch(
    '/public/score-configs/:configId',
    { summary: 'Change or archive a score config (Langfuse)', params: configId, body: scoreConfigPatch, response: langfuseScoreConfigResponse, notFound: true },
    async (req, { params, body }) => langfuseScoreConfigJson(await updateConfig(req.ctx, params.configId, body)),
  );

  langfuse.get(
    '/public/sessions',
    { summary: 'List sessions (Langfuse)', query: sessionsQuery, response: langfusePage(langfuseSessionResponse, 'LangfuseSessions') },
    async (req, { query }) => listLangfuseSessions(req.ctx, query),
  );
  langfuse.get(
    '/public/sessions/:sessionId',
    { summary: 'One session and its traces (Langfuse)', params: sessionId, response: langfuseSessionWithTracesResponse, notFound: true },
    async (req, { params }) => langfuseSessionWithTraces(req.ctx, await sessions.getSession(req.ctx, params.sessionId)),
  );

  annotationQueueRoutes(langfuse);
  datasetRoutes(langfuse);
  experimentRoutes(langfuse);
  promptRoutes(app);
}

/** Langfuse's datasets and dataset items over Assay's test sets (docs/langfuse.md#datasets). */
function datasetRoutes(langfuse: ReturnType<typeof langfuseRoutes>): void {
  const { datasetResponse, itemResponse } = datasets;
  langfuse.get(
    '/public/v2/datasets',
    { summary: 'List datasets: the test sets (Langfuse)', query: datasets.datasetPageQuery, response: langfusePage(datasetResponse, 'LangfuseDatasets') },
    async (req, { query }) => datasets.listDatasets(req.ctx, query),
  );
  langfuse.post(
    '/public/v2/datasets',
    {
      summary: 'Create a dataset: a test set without rows, or the description and metadata of the one of that name (Langfuse)',
      body: datasets.createDatasetBody,
      response: datasetResponse,
    },
    async (req, { body }) => datasets.createDataset(req.ctx, body),
  );
  langfuse.get(
    '/public/v2/datasets/:datasetName',
    { summary: 'One dataset by name (Langfuse)', params: datasets.datasetName, response: datasetResponse, notFound: true },
    async (req, { params }) => datasets.getDataset(req.ctx, params.datasetName),
  );
  langfuse.get(
    '/public/datasets/:datasetName',
    {
      summary: 'One dataset by name with its items (Langfuse v1)',
      params: datasets.datasetName,
      response: datasets.datasetWithItemsResponse,
      notFound: true,
    },
    async (req, { params }) => datasets.getDatasetWithItems(req.ctx, params.datasetName),
  );
  langfuse.get(
    '/public/dataset-items',
    {
      summary: "Dataset items: test sets' cases, current and archived, in the sets' order (Langfuse)",
      query: datasets.itemPageQuery,
      response: langfusePage(itemResponse, 'LangfuseDatasetItems'),
      notFound: true,
    },
    async (req, { query }) => datasets.listItems(req.ctx, query),
  );
  langfuse.post(
    '/public/dataset-items',
    {
      summary: "Create or update a dataset item by its id: a test set's case, written as a new revision (Langfuse)",
      body: datasets.createItemBody,
      response: itemResponse,
      notFound: true,
    },
    async (req, { body }) => datasets.upsertItem(req.ctx, body),
  );
  langfuse.get(
    '/public/dataset-items/:id',
    { summary: 'One dataset item (Langfuse)', params: datasets.itemId, response: itemResponse, notFound: true },
    async (req, { params }) => datasets.getItem(req.ctx, params.id),
  );
  langfuse.delete(
    '/public/dataset-items/:id',
    {
      summary: 'Delete a dataset item: its case leaves the test set as a new revision (Langfuse)',
      params: datasets.itemId,
      response: messageResponse,
      notFound: true,
    },
    async (req, { params }) => datasets.deleteItem(req.ctx, params.id),
  );
}

const promptName = z.object({ name: z.string().min(1) });

/** Prompts over variants and deployments (docs/deployments.md#langfuse). */
function promptRoutes(app: FastifyInstance): void {
  const langfuse = langfuseRoutes(app);
  langfuse.get(
    '/public/v2/prompts/:name',
    {
      summary: 'One version of a prompt, by version or label (Langfuse)',
      description: "`label` is an environment of the prompt's app (`production` by default) or `latest`; `version` a revision's number.",
      params: promptName,
      query: getPromptQuery,
      response: langfusePromptResponse,
      notFound: true,
    },
    async (req, { params, query }) => getPrompt(req.ctx, params.name, query),
  );
  langfuse.post(
    '/public/v2/prompts',
    {
      summary: "A new version of a prompt: the prompt variant's next revision, deployed to its labels (Langfuse)",
      body: createPromptBody,
      response: langfusePromptResponse,
    },
    async (req, { body }) => createPrompt(req.ctx, body),
  );
  langfuse.patch(
    '/public/v2/prompts/:name/versions/:version',
    {
      summary: 'Move labels onto a version: deploy its revision to those environments (Langfuse)',
      params: promptVersionParams,
      body: updatePromptLabelsBody,
      response: langfusePromptResponse,
      notFound: true,
    },
    async (req, { params, body }) => setPromptLabels(req.ctx, params.name, params.version, body.newLabels),
  );
  langfuse.get(
    '/public/v2/prompts',
    { summary: 'List prompts (Langfuse)', query: listPromptsQuery, response: langfusePage(langfusePromptMetaResponse, 'LangfusePrompts') },
    async (req, { query }) => listPrompts(req.ctx, query),
  );
}

/** Langfuse's annotation queues, items and assignments over Assay's queues (docs/langfuse.md#annotation-queues). */
function annotationQueueRoutes(langfuse: ReturnType<typeof langfuseRoutes>): void {
  const { queueResponse, itemResponse } = annotationQueues;
  langfuse.get(
    '/public/annotation-queues',
    { summary: 'List annotation queues (Langfuse)', query: annotationQueues.queuePageQuery, response: langfusePage(queueResponse, 'LangfuseAnnotationQueues') },
    async (req, { query }) => annotationQueues.listQueues(req.ctx, query),
  );
  langfuse.post(
    '/public/annotation-queues',
    { summary: 'Create an annotation queue of traces (Langfuse)', body: annotationQueues.createQueueBody, response: queueResponse },
    async (req, { body }) => annotationQueues.createQueue(req.ctx, body),
  );
  langfuse.get(
    '/public/annotation-queues/:queueId',
    { summary: 'One annotation queue (Langfuse)', params: queueId, response: queueResponse, notFound: true },
    async (req, { params }) => annotationQueues.getQueue(req.ctx, params.queueId),
  );
  langfuse.get(
    '/public/annotation-queues/:queueId/items',
    {
      summary: "A queue's items (Langfuse)",
      params: queueId,
      query: annotationQueues.itemPageQuery,
      response: langfusePage(itemResponse, 'LangfuseAnnotationQueueItems'),
      notFound: true,
    },
    async (req, { params, query }) => annotationQueues.listItems(req.ctx, params.queueId, query),
  );
  langfuse.post(
    '/public/annotation-queues/:queueId/items',
    {
      summary: 'Add an item, or complete it at once with status COMPLETED (Langfuse)',
      params: queueId,
      body: annotationQueues.createItemBody,
      response: itemResponse,
      notFound: true,
    },
    async (req, { params, body }) => annotationQueues.createItem(req.ctx, params.queueId, body),
  );
  langfuse.get(
    '/public/annotation-queues/:queueId/items/:itemId',
    { summary: 'One queue item (Langfuse)', params: queueItemId, response: itemResponse, notFound: true },
    async (req, { params }) => annotationQueues.getItem(req.ctx, params.queueId, params.itemId),
  );
  langfuse.patch(
    '/public/annotation-queues/:queueId/items/:itemId',
    {
      summary: "Complete an item: the caller's annotation (Langfuse)",
      params: queueItemId,
      body: annotationQueues.updateItemBody,
      response: itemResponse,
      notFound: true,
    },
    async (req, { params, body }) => annotationQueues.updateItem(req.ctx, params.queueId, params.itemId, body),
  );
  langfuse.delete(
    '/public/annotation-queues/:queueId/items/:itemId',
    { summary: 'Remove an item (Langfuse)', params: queueItemId, response: z.object({ success: z.boolean(), message: z.string() }), notFound: true },
    async (req, { params }) => annotationQueues.deleteItem(req.ctx, params.queueId, params.itemId),
  );
  langfuse.post(
    '/public/annotation-queues/:queueId/assignments',
    {
      summary: 'Assign a member to a queue (Langfuse)',
      params: queueId,
      body: annotationQueues.assignmentBody,
      response: z.object({ userId: z.string(), queueId: z.string(), projectId: z.string() }),
      notFound: true,
    },
    async (req, { params, body }) => annotationQueues.assign(req.ctx, params.queueId, body.userId),
  );
  langfuse.delete(
    '/public/annotation-queues/:queueId/assignments',
    {
      summary: 'Unassign a member (Langfuse)',
      params: queueId,
      body: annotationQueues.assignmentBody,
      response: z.object({ success: z.boolean() }),
      notFound: true,
    },
    async (req, { params, body }) => annotationQueues.unassign(req.ctx, params.queueId, body.userId),
  );
}

/** Langfuse's dataset runs over runs recorded from code, and the project the SDK builds links with (docs/langfuse.md#dataset-runs). */
function experimentRoutes(langfuse: ReturnType<typeof langfuseRoutes>): void {
  langfuse.post(
    '/public/dataset-run-items',
    {
      summary: 'Link a dataset item to its trace in a run (Langfuse)',
      description: "Creates the run on its first item: Assay's evaluation of the dataset's test set recorded from code (docs/experiments.md).",
      body: experiments.runItemBody,
      response: experiments.runItemResponse,
      notFound: true,
    },
    async (req, { body }) => experiments.createRunItem(req.ctx, body),
  );
  langfuse.get(
    '/public/dataset-run-items',
    {
      summary: "A run's items (Langfuse)",
      query: experiments.runItemsQuery,
      response: langfusePage(experiments.runItemResponse, 'LangfuseDatasetRunItems'),
      notFound: true,
    },
    async (req, { query }) => experiments.listRunItems(req.ctx, query),
  );
  langfuse.get(
    '/public/datasets/:datasetName/runs',
    {
      summary: "A dataset's runs (Langfuse)",
      params: experiments.datasetParams,
      query: pageQuery,
      response: langfusePage(experiments.runResponse, 'LangfuseDatasetRuns'),
      notFound: true,
    },
    async (req, { params, query }) => experiments.listRuns(req.ctx, params.datasetName, query),
  );
  langfuse.get(
    '/public/datasets/:datasetName/runs/:runName',
    { summary: 'A dataset run with its items (Langfuse)', params: experiments.runParams, response: experiments.runWithItemsResponse, notFound: true },
    async (req, { params }) => experiments.getRun(req.ctx, params.datasetName, params.runName),
  );
  langfuse.delete(
    '/public/datasets/:datasetName/runs/:runName',
    { summary: 'Delete a dataset run with its items (Langfuse)', params: experiments.runParams, response: messageResponse, notFound: true },
    async (req, { params }) => experiments.deleteRun(req.ctx, params.datasetName, params.runName),
  );
  langfuse.get('/public/projects', { summary: "The API key's project (Langfuse)", response: experiments.projectsResponse }, async (req) =>
    experiments.keyProjects(req.ctx),
  );
}

/** Registers Langfuse's public API in a scope of its own (its bodies and its error answers). */
export async function registerLangfuse(server: FastifyInstance): Promise<void> {
  await server.register((scope, _options, done) => {
    acceptJsonBodies(scope);
    scope.setErrorHandler((error: FastifyError | AssayError, request, reply) => {
      if (error instanceof AssayError) {
        const { status, body } = langfuseErrorAnswer(error);
        return reply.code(status).headers(error.headers()).send(body);
      }
      const status = error.statusCode;
      if (status && status >= 400 && status < 500) return reply.code(status).send({ message: error.message, error: langfuseErrorName(status) });
      request.log.error({ err: error }, 'unhandled error in Langfuse API');
      return reply.code(500).send({ message: 'Internal Server Error', error: 'An unknown error occurred' });
    });
    routes(scope);
    done();
  });
}
