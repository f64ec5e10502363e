import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';
import { relayArtifacts } from './web/relay-artifacts.js';

const require = createRequire(import.meta.url);

// Files that never open the database under test: the UI's component tests, the code sandboxes
// and the scorers run alone, and `npm start`'s own SQLite file. The PostgreSQL pass
// (TEST_DATABASE_URL) would run them exactly as the SQLite pass did, so it leaves them out
// (docs/database.md#tests).
const databaseFree = [
  'web/src/**/*.test.{ts,tsx}',
  'src/evaluators/sandbox/**/*.test.ts',
  'src/evaluators/scorers/!(code-python).test.ts',
  'test/start.test.ts',
];
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

// Files that need a process of their own: they drive Chromium, start child processes or several
// servers, load the machine on purpose, or touch process-wide state (a DOM, sandbox pools, the
// global OpenTelemetry provider the SDKs under test/clients register, a SQLite Prisma client on
// the PostgreSQL pass). Every other file starts at most one server on its own database in a
// beforeAll and leaves nothing process-wide behind, so a worker runs them one after another in one
// process (docs/database.md#tests).
const ownProcess = [
  ...databaseFree,
  'src/evaluators/scorers/code-python.test.ts',
  'test/clients/**/*.test.ts',
  'test/ui*.test.ts',
  'test/*-browser.test.ts',
  'src/shared/http/browser.test.ts',
  'test/{access,docs-references,migrations,multi-instance,online-evaluation-instances,postgres,robustness,runtime,tour}.test.ts',
  'src/auth/keys/cli-bootstrap.test.ts',
  'src/auth/users/users-{http,process}.test.ts',
  'src/evaluations/runner.{llm-evaluators,prompt-variants,restart}.test.ts',
  'src/human-evaluations/runner.restart.test.ts',
  'src/graphql/clients.test.ts',
  'src/observability/ingestion/otlp/{http-receiver.durability,http-receiver.huge-trace,logs.openai-instrumentation}.test.ts',
  'src/observability/retention/{deletion.scores,retention-sweeper}.test.ts',
  'src/online-evaluation/runner.skips.test.ts',
  'src/shared/http/{json-errors,limits,logging.process,outbound.saved-urls}.test.ts',
  'src/shared/validation.fastapi-parity.test.ts',
];
const allTests = ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'];
const leftOut = [...configDefaults.exclude, ...(onPostgres ? databaseFree : [])];

export default defineConfig({
  // The UI's tests render components with their Relay fragments (docs/ui.md#tests).
  plugins: [relayArtifacts()],
  resolve: {
    // graphql has no exports map: Vite would pick its ESM build for our code while Node gives
    // Pothos and Yoga the CJS one, and graphql refuses types from "another module or realm".
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    // Builds web/dist when it is older than its sources, once per run: the browser tests load it.
    globalSetup: ['test/helpers/web-build.ts'],
    // Each file starts one real server on its own SQLite file; two cores run two files at once.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'service',
          include: allTests,
          exclude: [...leftOut, ...ownProcess],
          // A worker runs its files one after another in one process, importing the service once
          // rather than once per file: that import and the first start's warm-up were most of
          // `npm test` (docs/database.md#tests). Each file still has its own server and database.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          // The web UI's own tests live beside its code (docs/ui.md#tests).
          include: ownProcess,
          exclude: leftOut,
        },
      },
    ],
  },
});
