// The bounds a request meets while it is received (docs/limits.md): how long its headers and its
// body may take, and what becomes of a body still arriving when its answer was already given.
import { maxHeaderSize, type ServerOptions } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Node refuses a request line and headers over this (431), so no path segment is longer. */
export const MAX_URL_BYTES = maxHeaderSize;

/**
 * Node's own receive timeouts, which Fastify leaves off (requestTimeout 0): a client sending a
 * byte a second would hold its connection for ever. They bound receiving only; a long answer (an
 * SSE subscription, a slow evaluation) is not cut. Past them Node emits `clientError`, answered
 * 408 by `answerClientError` (errors.ts).
 */
export function receiveTimeouts(requestTimeoutSeconds: number, headersTimeoutSeconds: number): { requestTimeout: number; http: ServerOptions } {
  const requestTimeout = Math.round(requestTimeoutSeconds * 1000);
  // Node refuses a headers timeout longer than the request's.
  const headersTimeout = Math.min(Math.round(headersTimeoutSeconds * 1000), requestTimeout);
  return {
    requestTimeout,
    http: {
      requestTimeout,
      headersTimeout,
      // How often Node looks for expired requests (30 s by default, too coarse for short limits).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, headersTimeout / 4)),
    },
  };
}

/**
 * A request answered before its body arrived (a multipart form refused at its first bytes, a
 * second file part, a JSON body over the limit) still has the rest of its body on the wire; left
 * unread, the keep-alive connection never reaches the next request. The rest is read and dropped,
 * up to `maxBytes` more, past which the connection is closed.
 */
export function drainUnreadBodies(app: FastifyInstance, maxBytes: number): void {
  app.addHook('onResponse', (request, _reply, done) => {
    const raw = request.raw;
    if (raw.complete || raw.destroyed) return done();
    let left = maxBytes;
    // A parser that gave up (busboy after an error) no longer reads: the body is ours now.
    raw.unpipe();
    raw.removeAllListeners('data');
    raw.on('data', (chunk: Buffer) => {
      left -= chunk.length;
      // Destroying the request closes its connection (and works on an in-process request, which has no socket).
      if (left < 0) raw.destroy();
    });
    raw.resume();
    done();
  });
}
