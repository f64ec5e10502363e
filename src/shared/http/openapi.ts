// The OpenAPI 3.1 document of the REST surface, generated from the zod schemas each route is
// declared with (`config.openapi` in its route options). Routes are registered with `restRoutes`
// (route.ts), which validates with the very schemas described here, so the two cannot drift.
// How to add a route: docs/api.md.
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiParameters,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import type { Scope } from '../context.js';
import { serveSwaggerUi } from './swagger-ui.js';

/** Error answers a route may give besides 422, each `{"detail": "…"}`. */
export type ErrorStatus = 401 | 403 | 404 | 409 | 413 | 429;

export interface RouteDoc {
  /** The group in the reference (one per domain). */
  tag: string;
  summary: string;
  description?: string;
  /** Path parameters; by default every `:param` of the URL is a string. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** The JSON body (or multipart fields with `multipart`). */
  body?: z.ZodType;
  multipart?: boolean;
  /** Request examples by name (the README's tour). */
  examples?: Record<string, unknown>;
  /** The 200 answer's JSON; absent with `noContent`. */
  response?: z.ZodType;
  noContent?: boolean;
  errors?: ErrorStatus[];
  /**
   * The scope a caller needs (docs/access.md#scopes); by default `read` for GET, `write` otherwise.
   * `public`: served without credentials (the routes of logging in).
   */
  scope?: Scope | 'public';
  /** Acts in no project (listing or creating projects): a session of several projects names none (docs/access.md#the-project-of-a-session). */
  instanceWide?: boolean;
  /** Whole parts of the operation given as is (OTLP's protobuf bodies and answers). */
  operation?: Partial<Pick<ZodOpenApiOperationObject, 'requestBody' | 'responses' | 'requestParams'>>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    openapi?: RouteDoc;
  }
}

/**
 * Route options that only describe a route: for the few that validate otherwise (OTLP's protobuf
 * bodies, docs/api.md lists them). Every other route is registered with `restRoutes` (route.ts).
 */
export function described(doc: RouteDoc): { config: { openapi: RouteDoc } } {
  return { config: { openapi: doc } };
}

/** An ISO-8601 UTC timestamp as the API writes it. */
export const timestamp = () =>
  z.iso.datetime().meta({
    // `format: date-time` says it; zod's long pattern would only clutter the reference.
    override: ({ jsonSchema }) => {
      delete jsonSchema.pattern;
    },
  });

// FastAPI's names for the 422 body, so generated clients read alike.
const validationIssue = z.object({ loc: z.array(z.union([z.string(), z.int()])), msg: z.string(), type: z.string() }).meta({ id: 'ValidationError' });
const httpValidationError = z.object({ detail: z.array(validationIssue) }).meta({ id: 'HTTPValidationError' });
export const errorDetail = z.object({ detail: z.string() }).meta({ id: 'ErrorDetail' });

const errorAnswers = {
  401: { id: 'Unauthorized', description: 'No API key, or one that is not valid (with auth on; docs/access.md)' },
  403: { id: 'Forbidden', description: 'The API key lacks the scope this operation needs' },
  404: { id: 'NotFound', description: 'No such resource (or a malformed id)' },
  409: { id: 'Conflict', description: 'The name is taken, or the resource is in a state that forbids this' },
  413: { id: 'PayloadTooLarge', description: 'The body is larger than MAX_BODY_BYTES' },
  429: { id: 'TooManyRequests', description: "Over the API key's requests per minute: retry after Retry-After seconds" },
} as const;

const responseComponents = {
  UnprocessableEntity: {
    description: 'Validation failed: every fault, each with loc, msg and type (pydantic words)',
    content: { 'application/json': { schema: httpValidationError } },
  },
  ...Object.fromEntries(
    Object.values(errorAnswers).map(({ id, description }) => [id, { description, content: { 'application/json': { schema: errorDetail } } }]),
  ),
};

const ref = (id: string) => ({ $ref: `#/components/responses/${id}` });

/** `/apps/:app_id` → `/apps/{app_id}` and its parameter names. */
function openapiPath(url: string): { path: string; names: string[] } {
  const names: string[] = [];
  const path = url.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => {
    names.push(name);
    return `{${name}}`;
  });
  return { path, names };
}

/**
 * The schema of a route's path parameters: the declared one, or every `:param` of the URL as a
 * string; none without parameters. The document and the validation (route.ts) both take it from here.
 */
export function pathParamsSchema(url: string, doc: Pick<RouteDoc, 'params'>): z.ZodObject | undefined {
  const { names } = openapiPath(url);
  if (doc.params) {
    const declared = Object.keys(doc.params.shape).sort();
    if (declared.join() !== [...names].sort().join()) {
      throw new Error(`${url}: the params schema names ${declared.join(', ') || 'nothing'}, the URL ${names.join(', ') || 'nothing'}`);
    }
    return doc.params;
  }
  return names.length ? z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) : undefined;
}

function operation(method: string, url: string, doc: RouteDoc): ZodOpenApiOperationObject {
  const params = pathParamsSchema(url, doc);
  const requestParams: ZodOpenApiParameters = {};
  if (params) requestParams.path = params;
  if (doc.query) requestParams.query = doc.query;

  const validates = Boolean(doc.body || doc.query || doc.params);
  const responses: ZodOpenApiResponsesObject = doc.noContent
    ? { 204: { description: 'Done' } }
    : { 200: { description: 'OK', content: doc.response ? { 'application/json': { schema: doc.response } } : undefined } };
  if (validates) responses['422'] = ref('UnprocessableEntity');
  // Every described route but the public ones needs credentials when auth is on (docs/access.md).
  const isPublic = doc.scope === 'public';
  const errors = new Set<ErrorStatus>([...(doc.errors ?? []), ...(isPublic ? [] : ([401, 403, 429] as const))]);
  if (doc.body) errors.add(413);
  for (const status of [...errors].sort()) responses[`${status}` as const] = ref(errorAnswers[status].id);

  const examples = doc.examples && Object.fromEntries(Object.entries(doc.examples).map(([name, value]) => [name, { value }]));
  const mediaType = doc.multipart ? 'multipart/form-data' : 'application/json';
  return {
    tags: [doc.tag],
    summary: doc.summary,
    'x-scope': doc.scope ?? (method === 'GET' ? 'read' : 'write'),
    description: doc.description,
    requestParams,
    requestBody: doc.body ? { required: true, content: { [mediaType]: { schema: doc.body, examples } } } : undefined,
    responses,
    ...(isPublic ? { security: [] } : {}),
    ...doc.operation,
    ...(doc.operation?.responses ? { responses: { ...responses, ...doc.operation.responses } } : {}),
  };
}

/**
 * A body field is required exactly when validation refuses it absent. zod's own rule reads the
 * schema's shape and gets fields whose absence a transform handles (a default, a fault of its own)
 * wrong either way.
 */
function markRequired(jsonSchema: { required?: string[] }, shape: Record<string, z.ZodType>): void {
  const required = Object.keys(shape).filter((key) => !shape[key].safeParse(undefined).success);
  if (required.length) jsonSchema.required = required;
  else delete jsonSchema.required;
}

export interface DescribedRoute {
  method: string;
  url: string;
  doc: RouteDoc;
}

export function buildOpenApiDocument(routes: DescribedRoute[], version: string): object {
  const paths: ZodOpenApiPathsObject = {};
  for (const { method, url, doc } of routes) {
    const { path } = openapiPath(url);
    paths[path] = { ...paths[path], [method.toLowerCase()]: operation(method, url, doc) };
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Assay',
        version,
        description: [
          'Traces, evaluations and human judgements for LLM applications.',
          '',
          'Every path below is also served under `/api` (`/api/apps` is `/apps`), and a trailing slash is optional.',
          'Bodies are JSON; validation failures answer 422 in FastAPI\'s shape, other errors `{"detail": "…"}`.',
          'GraphQL is at `/graphql` (not described here).',
          'With auth on, every path needs an API key holding the scope named in its `x-scope` (docs/access.md in the repository).',
        ].join('\n'),
      },
      paths,
      // docs/access.md: `Authorization: Bearer <key>`, `ApiKey <key>` or `Basic base64(any:<key>)`.
      security: [{ bearer: [] }, { basic: [] }],
      components: {
        responses: responseComponents,
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (also accepted as `Authorization: ApiKey <key>`)' },
          basic: { type: 'http', scheme: 'basic', description: 'Any user name, the API key as the password' },
        },
      },
    },
    {
      // A refinement zod cannot express in JSON Schema is left out of the description (it still
      // validates) instead of failing the start.
      allowEmptySchema: { custom: true, transform: true, pipe: true },
      override: ({ jsonSchema, zodSchema, io }) => {
        if (io === 'input' && zodSchema._zod.def.type === 'object') markRequired(jsonSchema, (zodSchema as z.ZodObject).shape);
      },
    },
  );
}

/**
 * Collects the described routes as they are registered and, once the server is ready, builds the
 * document (once) and serves it at GET /openapi.json, with Swagger UI at GET /docs. Call before
 * any route is registered.
 */
export function registerApiDocs(server: FastifyInstance): void {
  // The same relative place from src/shared/http and dist/shared/http.
  const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };
  const routes: DescribedRoute[] = [];
  server.addHook('onRoute', (route) => {
    const doc = route.config?.openapi;
    if (!doc) return;
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url, doc });
  });
  let document = '';
  server.addHook('onReady', (done) => {
    document = JSON.stringify(buildOpenApiDocument(routes, version));
    done();
  });
  server.get('/openapi.json', { config: { access: 'public' } }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
  serveSwaggerUi(server, '/openapi.json');
}
