import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { relayArtifacts } from './web/relay-artifacts.js';

const require = createRequire(import.meta.url);

export default defineConfig({
  // The UI's tests render components with their Relay fragments (docs/ui.md#tests).
  plugins: [relayArtifacts()],
  resolve: {
    // graphql has no exports map: Vite would pick its ESM build for our code while Node gives
    // Pothos and Yoga the CJS one, and graphql refuses types from "another module or realm".
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    // The web UI's own tests live beside its code (docs/ui.md#tests).
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    // Builds web/dist when it is older than its sources, once per run: the browser tests load it.
    globalSetup: ['test/helpers/web-build.ts'],
    // Each file starts one real server on its own SQLite file; two cores run two files at once.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
