// REST routes declared once: the description a route carries into /openapi.json (openapi.ts) is
// also what validates its request, and the handler receives the parsed values, typed from those
// schemas. A route cannot describe one schema and validate another. How to add a route: docs/api.md.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { z } from 'zod';
import { parseInputs, type InputPart } from '../validation.js';
import { multipartFields } from './multipart.js';
import { pathParamsSchema, type RouteDoc } from './openapi.js';

/** `'/apps/:app_id/variants/:variant_id'` → `'app_id' | 'variant_id'`. */
type PathNames<Url extends string> = Url extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathNames<`/${Rest}`>
  : Url extends `${string}:${infer Name}`
    ? Name
    : never;

type Parsed<S, Otherwise> = [S] extends [z.ZodType] ? z.output<S> : Otherwise;

/** What a handler receives: each part parsed by the schema its route describes. */
export interface RouteInput<Url extends string, Doc extends RouteDoc> {
  /** The `params` schema's output, or every `:param` of the URL as a string. */
  params: Parsed<Doc['params'], { [Name in PathNames<Url>]: string }>;
  query: Parsed<Doc['query'], undefined>;
  body: Parsed<Doc['body'], undefined>;
}

export type RouteHandler<Url extends string, Doc extends RouteDoc> = (req: FastifyRequest, input: RouteInput<Url, Doc>, reply: FastifyReply) => unknown;

export interface RouteOptions {
  /** Called when the request is refused with a 422, before the answer (a metric of rejects). */
  onInvalid?: (req: FastifyRequest) => void;
}

type Register = <Url extends string, Doc extends RouteDoc>(url: Url, doc: Doc, handler: RouteHandler<Url, Doc>, options?: RouteOptions) => void;

function register(app: FastifyInstance, method: HTTPMethods): Register {
  return (url, doc, handler, options = {}) => {
    const params = pathParamsSchema(url, doc);
    const parts: { schema: z.ZodType; where: InputPart['where']; read: (req: FastifyRequest) => unknown }[] = [];
    // FastAPI's order: path, query, body; the faults of all three come in one 422.
    if (params) parts.push({ schema: params, where: 'path', read: (req) => req.params });
    if (doc.query) parts.push({ schema: doc.query, where: 'query', read: (req) => req.query });
    if (doc.body) parts.push({ schema: doc.body, where: 'body', read: (req) => (doc.multipart ? multipartFields(req) : req.body) });
    app.route({
      method,
      url,
      config: { openapi: doc },
      handler: async (req, reply) => {
        const values = await Promise.all(parts.map(({ read }) => read(req)));
        let outputs: unknown[];
        try {
          outputs = parseInputs(parts.map(({ schema, where }, index) => ({ schema, where, value: values[index] })));
        } catch (error) {
          options.onInvalid?.(req);
          throw error;
        }
        const input = { params: req.params, query: undefined, body: undefined } as Record<string, unknown>;
        parts.forEach(({ where }, index) => {
          input[where === 'path' ? 'params' : where] = outputs[index];
        });
        const answer = await handler(req, input as unknown as RouteInput<typeof url, typeof doc>, reply);
        // A route described as answering no content answers 204 once its handler has done the work.
        return doc.noContent ? reply.code(204).send() : answer;
      },
    });
  };
}

/**
 * Registers REST routes on `app`: `rest.post('/apps', { tag, summary, body: createAppInput, … },
 * async (req, { body }) => …)`. The route options' `config.openapi` is the description (openapi.ts
 * collects it); `params`, `query` and `body` are parsed with its schemas (422 in FastAPI's shape,
 * loc `path`/`query`/`body`), a multipart body from its fields.
 */
export function restRoutes(app: FastifyInstance) {
  return {
    get: register(app, 'GET'),
    post: register(app, 'POST'),
    put: register(app, 'PUT'),
    patch: register(app, 'PATCH'),
    delete: register(app, 'DELETE'),
  };
}
