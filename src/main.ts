// `npm start`: reads the configuration, opens (and migrates) the database, serves.
import { ConfigError, loadConfig, loadDotEnv } from './shared/config.js';
import { startLine } from './shared/http/logging.js';
import { createAssay } from './server.js';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const assay = await createAssay(config);
  const log = assay.server.log;
  for (const name of assay.migrationsApplied) log.info(`applied migration ${name}`);
  const grpc = assay.grpcPort === null ? null : `${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${assay.grpcPort}`;
  const stop = (signal: NodeJS.Signals) => {
    log.info({ signal }, `stopping (${signal}): finishing accepted requests and writes`);
    assay.close().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'stopped with an error');
        process.exit(1);
      },
    );
  };
  // Before listening: a signal sent as soon as the start line appears must find them.
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Fastify logs one line per address it listens on; that line lists everything served there.
  await assay.server.listen({
    port: config.PORT,
    host: config.HOST,
    listenTextResolver: (origin) => startLine({ origin, routes: assay.routes, grpc }),
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
