// Runs `prisma generate` without Prisma's engine download, which cannot be reached offline.
// The generators we use (prisma-client, prisma-pothos-types) never call the schema engine, but
// the CLI insists that one exists: any existing file satisfies the check (see STACK.md).
import { spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
env.CHECKPOINT_DISABLE = '1';
// Generators are found on PATH, as when npm runs a script.
env.PATH = [join(root, 'node_modules', '.bin'), env.PATH].join(delimiter);

const result = spawnSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate'], {
  cwd: root,
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
