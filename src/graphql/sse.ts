// The graphql-sse protocol at /graphql/stream (docs/graphql.md): its "distinct connections" mode
// (one stream per operation) and its "single connection" mode, where a client reserves a stream
// with PUT, listens on it with the token it got, and starts (POST) and stops (DELETE) many
// operations over it. Yoga's own SSE answer on /graphql (Accept: text/event-stream) stays as it was.
//
// Not @graphql-yoga/plugin-graphql-sse: its onSubscribe lets a syntax error or a refused document
// escape as an exception (a 500) and hands validation errors back in a shape graphql-sse does not
// recognise ("Unable to detect operation AST"). This one answers both as GraphQL errors, with
// their status. The stream registry lives in the handler, one per Yoga instance.
import { STATUS_CODES } from 'node:http';
import { getOperationAST, OperationTypeNode, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { Response as HandlerResponse } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/fetch';
import type { Plugin } from 'graphql-yoga';

export const graphqlSseEndpoint = '/graphql/stream';

/** Every method the protocol uses, for the route that carries it to Yoga. */
export const graphqlSseMethods = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const;

/** GraphQL errors as a graphql-sse handler answer: the status they carry (400 by default). */
function refusal(errors: readonly GraphQLError[]): HandlerResponse {
  const status = Math.max(...errors.map((error) => Number(error.extensions?.http?.status ?? 400)));
  const body = errors.map((error) => {
    const { http: _http, ...extensions } = error.extensions ?? {};
    return { message: error.message, locations: error.locations, ...(Object.keys(extensions).length > 0 ? { extensions } : {}) };
  });
  const code = status >= 400 && status < 600 ? status : 400;
  return [
    JSON.stringify({ errors: body }),
    { status: code, statusText: STATUS_CODES[code] ?? 'Bad Request', headers: { 'content-type': 'application/json; charset=utf-8' } },
  ];
}

function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof Error && error.name === 'GraphQLError';
}

/**
 * A stream whose source fails (an unknown evaluation to follow) ends with that error as its last
 * event, as on /graphql: graphql-sse would otherwise leave the failure unhandled and the stream open.
 */
async function* settled(results: AsyncIterable<ExecutionResult>): AsyncGenerator<ExecutionResult> {
  try {
    yield* results;
  } catch (error) {
    if (!isGraphQLError(error)) throw error;
    yield { errors: [error] };
  }
}

export function useGraphQLSSEProtocol(): Plugin {
  // The fetch Request graphql-sse sees → the Fastify request and reply Yoga was given with it.
  const serverContexts = new WeakMap<Request, Record<string, unknown>>();
  let handler: (request: Request) => Promise<Response>;
  return {
    onYogaInit({ yoga }) {
      handler = createHandler(
        {
          async onSubscribe(req, params) {
            const enveloped = yoga.getEnveloped({ ...serverContexts.get(req.raw), request: req.raw, params });
            let document: DocumentNode;
            try {
              document = enveloped.parse(params.query) as DocumentNode;
            } catch (error) {
              if (isGraphQLError(error)) return refusal([error]);
              throw error;
            }
            const errors = enveloped.validate(enveloped.schema, document) as readonly GraphQLError[];
            if (errors.length > 0) return refusal(errors);
            const args = {
              schema: enveloped.schema as GraphQLSchema,
              document,
              contextValue: (await enveloped.contextFactory()) as Record<string, unknown>,
              variableValues: params.variables,
              operationName: params.operationName,
            };
            const subscription = getOperationAST(document, params.operationName)?.operation === OperationTypeNode.SUBSCRIPTION;
            const result: AsyncIterable<ExecutionResult> | ExecutionResult = (await (subscription ? enveloped.subscribe(args) : enveloped.execute(args))) as
              AsyncIterable<ExecutionResult> | ExecutionResult;
            if (Symbol.asyncIterator in result) return settled(result);
            if ('data' in result) return result;
            // Refused for its caller (a missing scope, scopes.ts): the answer's status says so.
            if (result.errors?.some((error) => error.extensions?.http)) return refusal(result.errors);
            // Without `data` the operation failed before it ran (bad variables, an unknown
            // evaluation to follow): sent as one event, as Yoga's own SSE on /graphql does, since
            // graphql-sse does not take a result without `data` for a result.
            // eslint-disable-next-line @typescript-eslint/require-await -- graphql-sse takes an AsyncIterable; a one-event stream has nothing to await
            return (async function* () {
              yield result;
            })();
          },
        },
        yoga.fetchAPI,
      );
    },
    onRequest(event) {
      const { request, url, serverContext } = event;
      if (url.pathname.replace(/\/$/, '') !== graphqlSseEndpoint) return;
      serverContexts.set(request, serverContext);
      return handler(request).then((response) => event.endResponse(response));
    },
  };
}
