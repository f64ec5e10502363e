// Langfuse's batch ingestion, `POST /api/public/ingestion` (docs/langfuse.md#ingestion): every
// event of the batch is answered on its own in the 207 body, as Langfuse answers it. `score-create`
// events are stored as scores; `sdk-log` events are taken (Langfuse logs them; Assay logs no body); traces and
// observations are refused one by one, each saying where they go instead: Langfuse's SDKs since
// v3 (Python) and v4 (JS) send them over OpenTelemetry, which Assay serves at the same base URL.
import { followTraces } from '../evaluations/external-traces.js';
import type { RequestContext } from '../shared/context.js';
import { AssayError, ValidationError } from '../shared/errors.js';
import type { ScoreInput } from '../scores/inputs.js';
import { ingestionEvent, langfuseScoreBody, type ingestionBody } from './inputs.js';
import { LangfuseInvalidRequest, refusalText, type IngestionAnswer } from './responses.js';
import { scoreInputOf, writeLangfuseScores } from './scores.js';
import type { z } from 'zod';

/** The event types of Langfuse's legacy tracing: stored by Assay when they come over OpenTelemetry. */
const tracingEvents = new Set([
  'trace-create',
  'span-create',
  'span-update',
  'generation-create',
  'generation-update',
  'event-create',
  'observation-create',
  'observation-update',
]);

const TRACING_REFUSAL =
  'Assay stores traces and observations sent over OpenTelemetry: point the exporter at <base URL>/api/public/otel ' +
  "(Langfuse's SDKs from JS v4 and Python v3 do so by themselves). This endpoint stores score-create events (docs/langfuse.md#ingestion).";

/** The id an answer names an event by: its own, or "unknown" for one without (as Langfuse). */
function eventId(event: unknown): string {
  const id = typeof event === 'object' && event !== null ? (event as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : 'unknown';
}

/** Langfuse's message of a refused event, by status; `error` says what exactly. */
const eventMessages: Record<number, string> = {
  400: 'Invalid request data',
  401: 'Authentication error',
  403: 'Access denied',
  404: 'Resource not found',
  409: 'Conflict',
};

/** A refusal of one event in the 207 body: a fault is a 400 whose `error` names the field. */
function refusal(id: string, error: AssayError) {
  const status = error instanceof ValidationError ? 400 : error.status;
  return { id, status, message: eventMessages[status] ?? 'Error', error: refusalText(error) };
}

/** Stores what a batch holds and answers each event: 201 among `successes`, or why among `errors`. */
export async function ingestBatch(ctx: RequestContext, body: z.output<typeof ingestionBody>): Promise<IngestionAnswer> {
  // Each event counts against the key's rate limit, as each span of an OTLP export does (docs/access.md#rate-limits).
  await ctx.rateLimits.consume(ctx.principal.actor, Math.max(1, body.batch.length));
  const answer: IngestionAnswer = { successes: [], errors: [] };
  const scores: { id: string; input: ScoreInput }[] = [];
  for (const raw of body.batch) {
    const parsed = ingestionEvent.safeParse(raw);
    if (!parsed.success) {
      const faults = parsed.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message, code: issue.code }));
      answer.errors.push(refusal(eventId(raw), new LangfuseInvalidRequest(faults)));
      continue;
    }
    const event = parsed.data;
    if (event.type === 'score-create') {
      try {
        const score = langfuseScoreBody.safeParse(event.body);
        if (!score.success) {
          throw new LangfuseInvalidRequest(
            score.error.issues.map((issue) => ({ path: ['body', ...issue.path.map(String)], message: issue.message, code: issue.code })),
          );
        }
        scores.push({ id: event.id, input: scoreInputOf(score.data) });
      } catch (error) {
        if (!(error instanceof AssayError)) throw error;
        answer.errors.push(refusal(event.id, error));
      }
    } else if (event.type === 'sdk-log') {
      answer.successes.push({ id: event.id, status: 201 });
    } else {
      answer.errors.push({
        id: event.id,
        status: 400,
        message: 'Event type not accepted',
        error: tracingEvents.has(event.type)
          ? `Event type "${event.type}" is not stored from /api/public/ingestion. ${TRACING_REFUSAL}`
          : `Unknown event type "${event.type}". ${TRACING_REFUSAL}`,
      });
    }
  }
  const outcomes = await writeLangfuseScores(
    ctx,
    scores.map(({ input }) => input),
  );
  outcomes.forEach((outcome, index) => {
    const { id } = scores[index];
    if (outcome.ok) answer.successes.push({ id, status: 201 });
    else answer.errors.push(refusal(id, outcome.error));
  });
  // Scores on the traces of a run's cases are its results (docs/langfuse.md#dataset-runs).
  await followTraces(
    ctx,
    scores.flatMap(({ input }, index) => (outcomes[index].ok && input.trace_id ? [input.trace_id] : [])),
  );
  return answer;
}
