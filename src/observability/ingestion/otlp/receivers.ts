// Registers OTLP ingestion on the service: the OTLP/HTTP scope and, unless OTLP_GRPC_PORT is 0,
// the OTLP/gRPC server. `close()` stops gRPC and waits for the write queue to drain; it must run
// before the database is closed.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../shared/config.js';
import { requestContext, requireScope, type Principal, type Services } from '../../../shared/context.js';
import { OtlpDecoder } from './decoding-thread.js';
import { startOtlpGrpc, type OtlpGrpcServer } from './grpc-receiver.js';
import { otlpHttpRoutes } from './http-receiver.js';

export interface OtlpIngestion {
  /** The bound gRPC port, or null when gRPC is off or its port could not be bound. */
  grpcPort: number | null;
  close(): Promise<void>;
}

/**
 * `authenticate` resolves a request's credentials to its principal (auth/access.ts): the server's
 * one resolver, so gRPC and HTTP accept the same keys the same way.
 */
export async function registerOtlp(
  server: FastifyInstance,
  config: Config,
  services: Services,
  authenticate: (credentials: { authorization?: string }) => Promise<Principal>,
): Promise<OtlpIngestion> {
  const decoder = new OtlpDecoder();
  await server.register((scope, _options, done) => {
    otlpHttpRoutes(scope, config.MAX_BODY_BYTES, decoder);
    done();
  });
  let grpc: OtlpGrpcServer | null = null;
  if (config.OTLP_GRPC_PORT !== 0) {
    try {
      grpc = await startOtlpGrpc({
        host: config.HOST,
        port: config.OTLP_GRPC_PORT,
        maxMessageBytes: config.MAX_BODY_BYTES,
        context: async (authorization) => {
          const principal = await authenticate({ authorization });
          requireScope(principal, 'ingest');
          return requestContext(services, principal.projectId, principal);
        },
        decoder,
        log: server.log.child({ component: 'otlp-grpc' }),
      });
    } catch (error) {
      // HTTP (REST, GraphQL, OTLP/HTTP) still serves: a port taken by another collector should
      // not take the whole service down. The log says why gRPC is off.
      server.log.error({ err: error }, `OTLP/gRPC could not listen on ${config.HOST}:${config.OTLP_GRPC_PORT}; gRPC ingestion is off`);
    }
  }
  return {
    grpcPort: grpc?.port ?? null,
    close: async () => {
      await grpc?.close();
      await services.spanQueue.close();
      await decoder.close();
    },
  };
}
