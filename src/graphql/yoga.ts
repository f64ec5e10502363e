// GraphQL over HTTP at /graphql, with GraphiQL for browsers (GET with Accept: text/html), automatic
// persisted queries, and the graphql-sse protocol at /graphql/stream (docs/graphql.md).
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLError } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { AssayError } from '../shared/errors.js';
import { noteForLog } from '../shared/http/logging.js';
import { createAPQStore, useAPQ } from './apq.js';
import { assayGraphQLError, maskError } from '../shared/graphql/errors.js';
import { renderOfflineGraphiQL } from './graphiql.js';
import { useDocumentLimits } from './limits.js';
import { schema } from './schema.js';
import { useScopes } from './scopes.js';
import { graphqlSseEndpoint, graphqlSseMethods, useGraphQLSSEProtocol } from './sse.js';

type ServerContext = { req: FastifyRequest; reply: FastifyReply };

/**
 * A GraphQL answer is a 200 even when it carries errors: this puts their codes on the request's
 * log line, a warning when the request was at fault (a bad query, bad input, an unknown id) and
 * an error when a resolver failed (INTERNAL_SERVER_ERROR, given by maskError to what it hides).
 */
const logErrorCodes: Plugin<Record<string, unknown>, ServerContext> = {
  onResultProcess({ result, serverContext }) {
    if (Symbol.asyncIterator in result) return;
    const errors = [result].flat().flatMap((one) => (one.errors ?? []) as GraphQLError[]);
    if (errors.length === 0) return;
    const codes = errors.map((error) => (typeof error.extensions?.code === 'string' ? error.extensions.code : 'GRAPHQL_ERROR'));
    const crashed = codes.includes('INTERNAL_SERVER_ERROR');
    noteForLog(serverContext.req, crashed ? 'error' : 'warn', { graphql_errors: [...new Set(codes)] });
  },
};

/** An AssayError of the 4xx family, under its GraphQL wrapping: the request's fault, not ours. */
function isClientFault(error: unknown): boolean {
  const original = error instanceof Error && error.name === 'GraphQLError' ? ((error as GraphQLError).originalError ?? error) : error;
  return original instanceof AssayError && original.status < 500;
}

/**
 * Event streams (subscriptions on /graphql, graphql-sse's streams) last as long as their client
 * keeps them open: a stop must not wait for them (docs/graphql.md#clients). Fastify's preClose
 * hook runs before the server waits for its open connections; it cuts the streams still open, and
 * their clients reconnect.
 */
function cutStreamsOnClose(app: FastifyInstance): void {
  const streams = new Set<Socket>();
  app.addHook('onRequest', (req, reply, done) => {
    if (req.headers.accept?.includes('text/event-stream')) {
      const socket = req.raw.socket;
      streams.add(socket);
      reply.raw.once('close', () => streams.delete(socket));
    }
    done();
  });
  app.addHook('preClose', (done) => {
    for (const socket of streams) socket.destroy();
    done();
  });
}

export function graphqlRoutes(app: FastifyInstance): void {
  const yoga = createYoga<ServerContext>({
    schema,
    graphqlEndpoint: '/graphql',
    // CORS is granted by the server's browser guards alone (shared/http/browser.ts), never by Yoga's echo.
    cors: false,
    context: ({ req }) => req.ctx,
    maskedErrors: { maskError },
    // One APQ store per server: created here, it lives and dies with this Yoga instance.
    plugins: [useAPQ(createAPQStore()), useDocumentLimits(), useScopes(), useGraphQLSSEProtocol(), logErrorCodes],
    graphiql: { title: 'Assay GraphQL' },
    renderGraphiQL: renderOfflineGraphiQL,
    logging: {
      debug: (...args) => app.log.debug(args),
      info: (...args) => app.log.info(args),
      warn: (...args) => app.log.warn(args),
      // Yoga logs every error it masks or rewrites; ours that a request caused (bad input, an
      // unknown id) are already on its line as codes. What remains is a crash, with its stack.
      error: (...args) => {
        if (args.length === 1 && isClientFault(args[0])) return;
        app.log.error(args[0] instanceof Error ? { err: args[0] } : { args }, 'GraphQL resolver failed');
      },
    },
  });
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
    response.headers.forEach((value, key) => {
      reply.header(key, value);
    });
    reply.status(response.status);
    reply.send(response.body);
    return reply;
  };
  cutStreamsOnClose(app);
  // Credentials are checked before Yoga (server.ts), scopes once the operation is known (scopes.ts).
  const config = { access: 'authenticated' as const };
  app.route({ url: '/graphql', method: ['GET', 'POST', 'OPTIONS'], config, handler });
  app.route({ url: graphqlSseEndpoint, method: [...graphqlSseMethods], config, handler });
  // A request refused before Yoga (no or a bad key, its rate limit) answers as GraphQL does.
  app.setErrorHandler((error, _req, reply) => {
    if (!(error instanceof AssayError)) throw error;
    const { message, extensions } = assayGraphQLError(error).toJSON();
    const { http: _http, ...shown } = extensions ?? {};
    return reply
      .code(error.status)
      .headers(error.headers())
      .type('application/json; charset=utf-8')
      .send({ errors: [{ message, extensions: shown }] });
  });
}
