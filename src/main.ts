// `npm start`: reads the configuration, opens (and migrates) the database, serves.
import { ConfigError, loadConfig, loadDotEnv } from './shared/config.js';
import { createAssay } from './server.js';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const assay = await createAssay(config);
  for (const name of assay.migrationsApplied) assay.server.log.info(`applied migration ${name}`);
  await assay.server.listen({ port: config.PORT, host: config.HOST });
  const stop = () => {
    assay.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
