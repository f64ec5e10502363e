import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';
import { relayArtifacts } from './web/relay-artifacts.js';

const require = createRequire(import.meta.url);

// Files checked to pass when a worker runs several of them in one process (on SQLite and
// PostgreSQL): each starts one server on its own database in a beforeAll and leaves nothing
// process-wide behind. Not yet the rest: a mixed run of files that start several servers,
// child processes or Chromium timed out there under load (docs/database.md#tests).
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

const shared = [
  'src/apps/routes.variants.test.ts',
  'src/evaluations/routes.create-validation.test.ts',
  'src/evaluators/routes.config-create.test.ts',
  'src/evaluators/routes.config-crud.test.ts',
  'src/testsets/routes.from-spans.test.ts',
  'src/testsets/routes.read-update-delete.test.ts',
  'src/testsets/routes.revisions.test.ts',
  'src/testsets/routes.upload.test.ts',
];

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
          include: shared,
          // A worker runs its files one after another in one process, importing the service once
          // rather than once per file: that import and the first start's warm-up were half of
          // `npm test` (docs/database.md#tests). Each file still has its own server and database.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          // The web UI's own tests live beside its code (docs/ui.md#tests).
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
          exclude: [...configDefaults.exclude, ...shared, ...(onPostgres ? databaseFree : [])],
        },
      },
    ],
  },
});
