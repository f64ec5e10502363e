// GraphQL over HTTP at /graphql, with GraphiQL for browsers (GET with Accept: text/html).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createYoga } from 'graphql-yoga';
import { maskError } from './errors.js';
import { useDocumentLimits } from './limits.js';
import { schema } from './schema.js';

export function graphqlRoutes(app: FastifyInstance): void {
  const yoga = createYoga<{ req: FastifyRequest; reply: FastifyReply }>({
    schema,
    graphqlEndpoint: '/graphql',
    context: ({ req }) => req.ctx,
    maskedErrors: { maskError },
    plugins: [useDocumentLimits()],
    graphiql: { title: 'Assay GraphQL' },
    logging: {
      debug: (...args) => app.log.debug(args),
      info: (...args) => app.log.info(args),
      warn: (...args) => app.log.warn(args),
      error: (...args) => app.log.error(args),
    },
  });
  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => reply.header(key, value));
      reply.status(response.status);
      reply.send(response.body);
      return reply;
    },
  });
}
