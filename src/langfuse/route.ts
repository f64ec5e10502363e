// How a route of Langfuse's public API is declared (docs/langfuse.md#errors): like `restRoutes`
// (shared/http/route.ts), one declaration describes the route for /openapi.json and parses its
// request, but a fault is Langfuse's 400 `{message: "Invalid request data", error: [faults]}`
// naming each field by its path, not Assay's 422. The scope's error handler (routes.ts) answers
// every other error in Langfuse's body too.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { z } from 'zod';
import type { Scope } from '../shared/context.js';
import { described, pathParamsSchema } from '../shared/http/openapi.js';
import { langfuseError, LangfuseInvalidRequest } from './responses.js';

export interface LangfuseRouteDoc {
  summary: string;
  description?: string;
  /** The scope a caller needs; by default `read` for GET, `write` otherwise. */
  scope?: Scope;
  params?: z.ZodObject;
  query?: z.ZodType;
  body?: z.ZodType;
  response: z.ZodType;
  /** The success status: 200, or 207 for the ingestion's multi-status answer. */
  status?: 200 | 207;
  /** Whether the route answers 404 for an id it does not find (or another project's). */
  notFound?: boolean;
}

type Parsed<S> = [S] extends [z.ZodType] ? z.output<S> : undefined;

export interface LangfuseInput<Doc extends LangfuseRouteDoc> {
  params: [Doc['params']] extends [z.ZodObject] ? z.output<NonNullable<Doc['params']>> : Record<string, string>;
  query: Parsed<Doc['query']>;
  body: Parsed<Doc['body']>;
}

const parts = ['params', 'query', 'body'] as const;

/** Every part parsed, or one LangfuseInvalidRequest listing the faults of all of them. */
function parse(doc: LangfuseRouteDoc, req: FastifyRequest): Record<(typeof parts)[number], unknown> {
  const faults: LangfuseInvalidRequest['faults'] = [];
  const parsed = { params: req.params, query: undefined as unknown, body: undefined as unknown };
  for (const part of parts) {
    const schema = doc[part];
    if (!schema) continue;
    const result = schema.safeParse(req[part]);
    if (result.success) parsed[part] = result.data;
    else
      faults.push(
        ...result.error.issues.map((issue) => ({
          path: issue.path.map((key) => (typeof key === 'number' ? key : String(key))),
          message: issue.message,
          code: issue.code,
        })),
      );
  }
  if (faults.length) throw new LangfuseInvalidRequest(faults);
  return parsed;
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: langfuseError } } });

/** The route's description for the reference: Langfuse's 400, not the 422 every other route has. */
function describe(url: string, doc: LangfuseRouteDoc) {
  const path = pathParamsSchema(url, doc);
  return described({
    tag: 'langfuse',
    summary: doc.summary,
    description: doc.description,
    scope: doc.scope,
    operation: {
      requestParams: { ...(path ? { path } : {}), ...(doc.query instanceof z.ZodObject ? { query: doc.query } : {}) },
      ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: doc.body } } } } : {}),
      responses: {
        [doc.status ?? 200]: {
          description: doc.status === 207 ? 'Multi-status: each event answered' : 'OK',
          content: { 'application/json': { schema: doc.response } },
        },
        400: errorResponse('Invalid request data: `error` lists the faults, each naming its field by `path`'),
        401: errorResponse('No API key, or one that is not valid (with auth on)'),
        403: errorResponse('The API key lacks the scope this operation needs'),
        ...(doc.notFound ? { 404: errorResponse('No such object in the project of the key (another project’s ids alike)') } : {}),
        429: errorResponse("Over the API key's rate limit: retry after Retry-After seconds"),
      },
    },
  });
}

export type LangfuseHandler<Doc extends LangfuseRouteDoc> = (req: FastifyRequest, input: LangfuseInput<Doc>, reply: FastifyReply) => Promise<unknown>;

/** Registers Langfuse routes on `app`: `langfuse.get('/public/scores/:scoreId', {…}, async (req, { params }) => …)`. */
export function langfuseRoutes(app: FastifyInstance) {
  const register =
    (method: HTTPMethods) =>
    <Doc extends LangfuseRouteDoc>(url: string, doc: Doc, handler: LangfuseHandler<Doc>) => {
      app.route({
        method,
        url,
        ...describe(url, doc),
        handler: async (req, reply) => {
          const input = parse(doc, req) as unknown as LangfuseInput<Doc>;
          const answer = await handler(req, input, reply);
          return reply.code(doc.status ?? 200).send(answer);
        },
      });
    };
  return { get: register('GET'), post: register('POST'), patch: register('PATCH'), delete: register('DELETE') };
}
