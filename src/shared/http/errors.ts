// The one place an error becomes an HTTP answer. Bodies follow FastAPI's `{detail}`; a 500 says
// nothing of its cause (it is logged instead).
import type { FastifyError, FastifyInstance } from 'fastify';
import { AssayError } from '../errors.js';

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AssayError, request, reply) => {
    if (error instanceof AssayError) {
      return reply.code(error.status).headers(error.headers()).send(error.body());
    }
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ detail: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: 'Internal Server Error' });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
}
