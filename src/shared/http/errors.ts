// The one place an error becomes an HTTP answer. Bodies follow FastAPI's `{detail}`; a 500 says
// nothing of its cause (it is logged instead). Errors raised before a route is found (a URL the
// router cannot read) or below HTTP (a request too slow, headers too large) get the same shape.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AssayError } from '../errors.js';

/**
 * `notFound` may answer an unknown path itself (the web UI's page for a browser, web-ui.ts); else
 * it is a 404.
 */
export function registerErrorHandling(app: FastifyInstance, notFound?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | null): void {
  app.setErrorHandler((error: FastifyError | AssayError, request, reply) => {
    if (error instanceof AssayError) {
      return reply.code(error.status).headers(error.headers()).send(error.body());
    }
    const status = error.statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ detail: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: 'Internal Server Error' });
  });
  app.setNotFoundHandler((request, reply) => notFound?.(request, reply) ?? reply.code(404).send({ detail: 'Not Found' }));
}

/**
 * Fastify's `frameworkErrors`: failures of routing itself. A path the router cannot read (bad
 * percent-encoding, a parameter over maxParamLength) matches no route: 404 like any other.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.code(404).send({ detail: 'Not Found' });
    return;
  }
  request.log.error({ err: error }, 'routing failed');
  reply.code(500).send({ detail: 'Internal Server Error' });
}

const clientErrors: Record<string, [status: number, reason: string, detail: string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request was not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request line and headers are too large'],
};

/**
 * Fastify's `clientErrorHandler`: Node found the connection's request unreadable (malformed HTTP,
 * headers too large) or too slow to arrive (its receive timeouts, limits.ts). The answer is written
 * on the socket, which is then closed: Node reads nothing more from it.
 */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, detail] = clientErrors[error.code ?? ''] ?? [400, 'Bad Request', 'The request is not valid HTTP/1.1'];
  this.log.debug({ err: error }, 'client error');
  // An answer already begun on this connection (given before the body arrived) cannot take another.
  const answering = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !answering?.headersSent) {
    const body = JSON.stringify({ detail });
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
