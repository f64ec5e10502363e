// `npm run build`'s second half (docs/ui.md#build): relay-compiler checks the UI's GraphQL against
// schema.graphql and writes its typed artifacts, then Vite bundles web/ into web/dist, which the
// service serves. Skipped when web/dist is newer than every input, so `npm start` stays fast; a
// failing relay-compiler (a schema change that breaks a UI query) fails the build.
// Each asset is then written compressed beside itself (`.br`, `.gz`), which the service sends to a
// browser that accepts them (src/shared/http/web-ui.ts; docs/ui.md#build).
// Also run by the tests' global setup (test/helpers/web-build.ts) before the browser tests.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'web', 'dist', '.built');
const inputs = [
  'web/src',
  'web/index.html',
  'web/vite.config.ts',
  'web/relay-artifacts.ts',
  'web/tsconfig.json',
  'schema.graphql',
  'relay.config.json',
  'package-lock.json',
  'scripts/build-web.mjs',
];

/** The newest modification time under `path`, leaving out what the bundle does not hold: generated artifacts (the build writes them) and tests. */
function newest(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path)
    .filter((name) => name !== '__generated__' && !/\.test\.tsx?$/.test(name))
    .reduce((latest, name) => Math.max(latest, newest(join(path, name))), stats.mtimeMs);
}

export function webBuildIsStale() {
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return inputs.some((input) => newest(join(root, input)) > built);
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
}

/** The page's assets (scripts, styles), each also as brotli and gzip at their best ratio: made once, served many times. */
export function compressAssets(assets = join(root, 'web', 'dist', 'assets')) {
  for (const name of readdirSync(assets).filter((file) => /\.(js|css|svg)$/.test(file))) {
    const raw = readFileSync(join(assets, name));
    const brotli = brotliCompressSync(raw, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
    });
    writeFileSync(join(assets, `${name}.br`), brotli);
    writeFileSync(join(assets, `${name}.gz`), gzipSync(raw, { level: constants.Z_BEST_COMPRESSION }));
  }
}

export async function buildWeb({ force = false } = {}) {
  if (!force && !webBuildIsStale()) return false;
  run(process.execPath, [join(root, 'node_modules', 'relay-compiler', 'cli.js')]);
  // Always React's production build: run from vitest, NODE_ENV is "test", which Vite would bake in.
  process.env.NODE_ENV = 'production';
  const { build } = await import('vite');
  await build({ configFile: join(root, 'web', 'vite.config.ts'), logLevel: 'warn' });
  compressAssets();
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  try {
    const built = await buildWeb({ force: process.argv.includes('--force') });
    console.log(built ? `web: built web/dist in ${Math.round(Date.now() - started)} ms` : 'web: web/dist is up to date');
  } catch (error) {
    console.error(`web: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
